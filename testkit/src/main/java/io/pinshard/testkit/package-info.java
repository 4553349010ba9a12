/**
 * Test support shared by the modules' tests (a test-scope dependency only): real S3 servers on 127.0.0.1
 * (s3proxy as {@link io.pinshard.testkit.S3TestServer} and the JUnit extension
 * {@link io.pinshard.testkit.S3ServerExtension}, node's s3rver, the fault-injecting proxy). It imports nothing of
 * pinshard's, so every module may use it; its own tests are the architecture checks of the whole repository.
 */
package io.pinshard.testkit;

#!/usr/bin/env bash
# Prints the classpath of the torch module's examples: torch/target/classes, the reactor modules' jars and the
# dependencies from ~/.m2 (libtorch, OpenBLAS, XChart, and test scope for slf4j-simple, which prints the data-wait
# warning; the library itself leaves the binding to its user), as torch's own build wrote them
# (torch/target/test.classpath: see scripts/module-classpath.sh). No Maven after `mvn verify`; builds the module with
# verify's goals when the file is missing or older than a source.
# Usage: scripts/torch-classpath.sh
set -euo pipefail
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/module-classpath.sh" torch

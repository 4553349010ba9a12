/**
 * JMH benchmarks of the data path: conversion, record access, decode, the crop kernel, the loader and its hand-off,
 * against the naive baseline. On the top floor beside cli, it may import every library module; the crop kernel's benchmark is the one outside user of the
 * loader's inner packages (augment, and sample's SplitMix: PackageCyclesTest lists it).
 */
package io.pinshard.jmh;

"""Builds on a worker: per-commit compression layers (codecs, rootbuild) in a build cache
keyed by sources and toolchain, pinned codec sets from source packages, ROOT release
builds, build profiles, the toolchain and the git mirror of ROOT."""

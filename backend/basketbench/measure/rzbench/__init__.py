"""The C++ harness from Python: locating and running rzbench (runner), instruction
counting under valgrind (counting), machine noise records (noise), cross-checks and the
rich tables the CLI prints."""

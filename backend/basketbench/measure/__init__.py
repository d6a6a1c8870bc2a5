"""The measurement library: everything that reads ROOT files, runs the C++ harness and
real ROOT, and checks result documents. It imports no web or database code (FastAPI,
Starlette, SQLAlchemy, Alembic): the API, the CLI and the workers use it, it uses none
of them (import contracts in pyproject.toml).

- rootio: TTree baskets, RNTuple pages, old CS blocks, the corpus format, re-paging
- rzbench: the rzbench runner, instruction counting, noise, tables
- realroot: ROOT releases, end-to-end I/O, ground truth, real skims
- document: the result-document contract (schema, screen, validation)
- advise: the pure ranking of settings and the advise pipeline"""

"""The synthetic benchmark history the seeder stores and the ingest benchmark extends.

Everything is a pure function of (seed, scale): commits with a git-graph order and
merges, three machines, datasets with their own compressibility, configurations
(setting x preconditioner x basket size), and per (commit, machine) a block of
results whose ratios follow algorithm and level, whose speeds follow machine,
codec and level with a few real step changes over history, run-to-run noise and
9 samples per speed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from basketbench.catalog.machines import fingerprint_hash

CODECS = {1: "zlib", 2: "lzma", 4: "lz4", 5: "zstd"}
SETTINGS = tuple(a * 100 + lvl for a in CODECS for lvl in range(1, 10))
PRECONDITIONERS = ("none", "shuffle", "bitshuffle")
SAMPLES = 9
REPOSITORY = "root-project/root"
MERGE_EVERY = 25  # every 25th commit is a merge of a one-commit side branch

# name, tag, speed factor, fingerprint fields
MACHINES: tuple[tuple[str, str, float, dict[str, Any]], ...] = (
    ("bench-haswell", "haswell", 1.0, {
        "arch": "x86_64", "cpu_model": "Intel Xeon E5-2680 v3", "vendor": "GenuineIntel",
        "family": 6, "model": 63,
        "isa": {"sse4_2": True, "avx2": True, "avx512f": False, "pclmul": True,
                "crc32": True},
        "caches": {"l1d": 32768, "l1i": 32768, "l2": 262144, "l3": 31457280},
        "cores_logical": 24, "cores_physical": 12}),
    ("bench-epyc", "epyc", 1.35, {
        "arch": "x86_64", "cpu_model": "AMD EPYC 7763", "vendor": "AuthenticAMD",
        "family": 25, "model": 1,
        "isa": {"sse4_2": True, "avx2": True, "avx512f": False, "pclmul": True,
                "crc32": True},
        "caches": {"l1d": 32768, "l1i": 32768, "l2": 524288, "l3": 268435456},
        "cores_logical": 128, "cores_physical": 64}),
    ("bench-armv8", "armv8-crc", 0.7, {
        "arch": "aarch64", "cpu_model": "Neoverse-N1", "vendor": "ARM", "family": None,
        "model": None, "isa": {"neon": True, "crc32": True},
        "caches": {"l1d": 65536, "l1i": 65536, "l2": 1048576, "l3": 33554432},
        "cores_logical": 80, "cores_physical": 80}),
)

# name, uncompressed bytes, zlib-6 ratio, how much shuffling helps
DATASETS: tuple[tuple[str, int, float, float], ...] = (
    ("nanoaod-ttbar", 52_428_800, 3.1, 1.18),
    ("nanoaod-dy", 48_234_496, 3.4, 1.15),
    ("cms-miniaod", 104_857_600, 2.6, 1.08),
    ("atlas-daod-phys", 83_886_080, 2.9, 1.12),
    ("lhcb-b2hhh", 31_457_280, 1.9, 1.22),
    ("opendata-higgs", 67_108_864, 2.2, 1.05),
    ("alice-esd", 94_371_840, 4.3, 1.03),
    ("geant-hits", 41_943_040, 5.6, 1.25),
)

# algorithm -> (ratio at level 1 relative to zlib-6, gain per level,
#               compress MB/s at level 1, slowdown per level, decompress MB/s)
CODEC_MODEL = {
    1: (0.86, 0.025, 95.0, 0.28, 380.0),
    2: (1.12, 0.018, 14.0, 0.22, 85.0),
    4: (0.72, 0.035, 620.0, 0.45, 2900.0),
    5: (0.95, 0.022, 430.0, 0.30, 1150.0),
}

# (first commit index as a fraction of history, algorithm, machine tag or None, factor):
# real step changes in speed the history and compare pages should show.
SPEED_STEPS = (
    (0.30, 4, "armv8-crc", 0.93),   # LZ4 got 7 % slower on ARMv8
    (0.55, 5, None, 1.04),          # ZSTD got 4 % faster everywhere
    (0.80, 1, "haswell", 0.96),     # zlib regression on Haswell
)
# (fraction, algorithm, factor on compressed bytes): exact size changes.
SIZE_STEPS = ((0.45, 5, 0.995), (0.70, 4, 1.002))


@dataclass(frozen=True)
class Configuration:
    id: int
    setting: int
    algorithm: int
    level: int
    codec: str
    preconditioner: str
    basket_size: int
    dictionary_size: int = 0
    mode: str = "basket"
    threads: int = 1


@dataclass(frozen=True)
class Commit:
    id: int
    sha: str
    parents: list[str]
    order: int
    date: datetime
    author: str
    message: str
    branch: str


@dataclass
class World:
    commits: int = 2000
    machines: int = 3
    datasets: int = 8
    configurations: int = 108
    basket_sizes: tuple[int, ...] = (0,)
    seed: int = 1
    start: datetime = field(default_factory=lambda: datetime(2024, 1, 1, tzinfo=UTC))

    def __post_init__(self) -> None:
        if not 1 <= self.machines <= len(MACHINES):
            raise ValueError(f"machines must be 1..{len(MACHINES)}")
        if not 1 <= self.datasets <= len(DATASETS):
            raise ValueError(f"datasets must be 1..{len(DATASETS)}")
        full = len(SETTINGS) * len(PRECONDITIONERS) * len(self.basket_sizes)
        if not 1 <= self.configurations <= full:
            raise ValueError(f"configurations must be 1..{full}")
        if self.commits < 1:
            raise ValueError("commits must be >= 1")

    # ---- catalog -----------------------------------------------------------------

    @property
    def pairs(self) -> int:
        return self.datasets * self.configurations

    @property
    def total_results(self) -> int:
        return self.commits * self.machines * self.pairs

    def configuration_list(self) -> list[Configuration]:
        """Preconditioner 'none' and basket size 0 first, so a small world still has the
        configurations history and tradeoff select by default."""
        out: list[Configuration] = []
        for basket in self.basket_sizes:
            for pre in PRECONDITIONERS:
                for s in SETTINGS:
                    alg, lvl = divmod(s, 100)
                    out.append(Configuration(len(out) + 1, s, alg, lvl, CODECS[alg], pre,
                                             basket))
        return out[:self.configurations]

    def machine_list(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for i, (name, tag, _speed, fp) in enumerate(MACHINES[:self.machines]):
            fingerprint = {"hostname": name, **fp, "kernel": "6.1.0-18-amd64",
                           "governor": "performance", "boost": False,
                           "compiler": "gcc 12.2.0", "compiler_flags": "-O2",
                           "libraries": {"zlib": "1.3.1", "lzma": "5.4.1", "lz4": "1.9.4",
                                         "zstd": "1.5.5", "xxhash": "0.8.1"}}
            # The API's own identity of a machine, so ingest finds the seeded one.
            fingerprint["fingerprint_hash"] = fingerprint_hash(fingerprint)
            out.append({"id": i + 1, "name": name, "tag": tag, "fingerprint": fingerprint})
        return out

    def dataset_list(self) -> list[dict[str, Any]]:
        return [{"id": i + 1, "name": name, "source": f"corpus/{name}.bbc", "bytes": size,
                 "baskets": size // 32768,
                 "checksum": "xxh64:" + hashlib.sha256(name.encode()).hexdigest()[:16]}
                for i, (name, size, _r, _s) in enumerate(DATASETS[:self.datasets])]

    def commit_list(self) -> list[Commit]:
        """A linear history with a one-commit side branch merged every MERGE_EVERY
        commits; order = 1 + max(parent orders), as the backend computes it."""
        # invented people: seeded commits must never be attributed to real developers
        authors = ("Ada Quill", "Boris Fennel", "Chiara Lomond", "Dev Okafor",
                   "Elin Marsh", "Farid Tannen")
        out: list[Commit] = []
        mainline: list[Commit] = []

        def add(parents: list[Commit], branch: str, message: str) -> Commit:
            i = len(out)
            c = Commit(
                id=i + 1, sha=self.sha(i), parents=[p.sha for p in parents],
                order=1 + max((p.order for p in parents), default=-1),
                date=self.start + timedelta(hours=3 * i), author=authors[i % len(authors)],
                message=f"[io] {message} ({i})", branch=branch)
            out.append(c)
            return c

        while len(out) < self.commits:
            if mainline and len(out) % MERGE_EVERY == MERGE_EVERY - 2 and len(mainline) > 4:
                side = add([mainline[-4]], f"feature-{len(out)}", "Tune basket buffers")
                if len(out) == self.commits:
                    break
                mainline.append(add([mainline[-1], side], "master",
                                    f"Merge branch feature-{side.id - 1}"))
            else:
                mainline.append(add(mainline[-1:], "master", "Update compression code"))
        return out

    def sha(self, index: int) -> str:
        return hashlib.sha1(f"basketbench-bench:{self.seed}:{index}".encode()).hexdigest()

    # ---- values ------------------------------------------------------------------

    def block(self, commit_index: int, machine_index: int) -> dict[str, np.ndarray]:
        """Results of one run (commit x machine), rows in (dataset, configuration) order.

        Returns arrays of length P = datasets x configurations: dataset_id,
        configuration_id, uncompressed, compressed, ratio, and (P, 9) sorted samples
        ``c_samples`` / ``d_samples`` in MB/s (rounded to 0.001)."""
        confs = self.configuration_list()
        ds = DATASETS[:self.datasets]
        _name, tag, mspeed, _fp = MACHINES[machine_index]
        frac = commit_index / max(self.commits, 1)
        rng = np.random.default_rng([self.seed, commit_index, machine_index])

        alg = np.array([c.algorithm for c in confs])
        lvl = np.array([c.level for c in confs], dtype=float)
        pre = np.array([PRECONDITIONERS.index(c.preconditioner) for c in confs])
        model = np.array([CODEC_MODEL[a] for a in alg])  # (C, 5)
        rel_ratio = model[:, 0] * (1 + model[:, 1] * (lvl - 1))
        c_speed = model[:, 2] / (1 + model[:, 3] * (lvl - 1))
        d_speed = model[:, 4] * (1 + 0.01 * lvl)
        size_factor = np.ones(len(confs))
        for at, a, factor in SIZE_STEPS:
            if frac >= at:
                size_factor[alg == a] *= factor
        speed_factor = np.full(len(confs), mspeed)
        for at, a, mtag, factor in SPEED_STEPS:
            if frac >= at and (mtag is None or mtag == tag):
                speed_factor[alg == a] *= factor

        unc = np.repeat([d[1] for d in ds], len(confs)).astype(np.int64)
        base_ratio = np.repeat([d[2] for d in ds], len(confs))
        shuffle_gain = np.repeat([d[3] for d in ds], len(confs))
        pre_gain = np.where(np.tile(pre, len(ds)) == 0, 1.0,
                            np.where(np.tile(pre, len(ds)) == 1, shuffle_gain,
                                     1 + (shuffle_gain - 1) * 0.8))
        ratio_model = base_ratio * np.tile(rel_ratio, len(ds)) * pre_gain
        compressed = np.maximum(1, np.round(unc / ratio_model / np.tile(size_factor, len(ds))))
        compressed = compressed.astype(np.int64)
        ratio = unc / compressed

        # Compressible data compresses faster; preconditioning costs a little speed.
        ds_speed = np.repeat([0.8 + 0.1 * d[2] for d in ds], len(confs))
        pre_cost = np.where(np.tile(pre, len(ds)) == 0, 1.0, 0.92)
        run_noise = 1 + rng.normal(0, 0.004)  # machine state of this run
        c_med = (np.tile(c_speed * speed_factor, len(ds)) * ds_speed * pre_cost * run_noise
                 * (1 + rng.normal(0, 0.006, len(ratio))))
        d_med = (np.tile(d_speed * speed_factor, len(ds)) * ds_speed * pre_cost * run_noise
                 * (1 + rng.normal(0, 0.006, len(ratio))))
        n = len(ratio)
        c_samples = np.sort(np.round(c_med[:, None] * (1 + rng.normal(0, 0.01, (n, SAMPLES))),
                                     3), axis=1)
        d_samples = np.sort(np.round(d_med[:, None] * (1 + rng.normal(0, 0.01, (n, SAMPLES))),
                                     3), axis=1)
        return {
            "dataset_id": np.repeat(np.arange(1, len(ds) + 1), len(confs)),
            "configuration_id": np.tile(np.array([c.id for c in confs]), len(ds)),
            "uncompressed": unc, "compressed": compressed, "ratio": ratio,
            "c_samples": c_samples, "d_samples": d_samples,
        }


def stats(samples: np.ndarray) -> dict[str, np.ndarray]:
    """median/min/max/mean/stddev/cv per row of a (rows, n) array of sorted samples."""
    mean = samples.mean(axis=1)
    std = samples.std(axis=1, ddof=1)
    return {"median": np.median(samples, axis=1), "min": samples[:, 0],
            "max": samples[:, -1], "mean": mean, "stddev": std, "cv": std / mean}

"""Real ROOT: release wheels from PyPI and their libCore (releases), speeds and ground
truth measured through them (release_speed, groundtruth), end-to-end TTree/RNTuple I/O
(io_bench and the pyroot_* scripts run in the release's own Python), real skims."""

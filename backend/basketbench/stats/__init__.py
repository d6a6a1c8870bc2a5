"""Pure statistics, no database and no HTTP: deltas and Mann-Whitney tests (deltas),
Benjamini-Hochberg FDR (fdr), e-divisive change points (edivisive), the speed rule and
bootstrap intervals (speed), the screen/confirm decisions (engine), drifts (drift) and
instruction-count attribution (counts)."""

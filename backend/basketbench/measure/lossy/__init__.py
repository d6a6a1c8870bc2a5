"""RNTuple's lossy float representations (issue 36): Real32Trunc, Real32Quant and Real16,
encoded and decoded as ROOT 6.40 writes them (`floats`), the sweep that re-encodes a file's
float columns at many bit widths and measures size against precision (`sweep`), the physics
quantities it checks (`physics`) and the bits a precision budget allows (`budget`)."""

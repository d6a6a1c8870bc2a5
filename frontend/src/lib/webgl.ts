// WebGL traces (scattergl) keep very long histories fast; without WebGL (some remote
// desktops, locked-down browsers) fall back to SVG traces rather than a blank plot.
let cached: boolean | undefined;

export function hasWebGL(): boolean {
  if (cached === undefined) {
    try {
      const canvas = document.createElement('canvas');
      const gl = canvas.getContext('webgl2') ?? canvas.getContext('webgl');
      cached = gl !== null;
      (gl as WebGLRenderingContext | null)?.getExtension('WEBGL_lose_context')?.loseContext();
    } catch {
      cached = false;
    }
  }
  return cached;
}

// Plots with more than WEBGL_MIN_POINTS points draw their lines with WebGL. Below it SVG is
// faster to the first frame: one path per line draws in tens of ms, while a WebGL context
// costs hundreds (shader links, and a software rasteriser where there is no GPU) plus
// Plotly's larger gl bundle. A history of 10 000 points drew its first plot in 0.97 s as SVG
// and 1.51 s with WebGL (docs/perf/frontend.md).
// app/early-data.ts, which index.html runs before any module, keeps a copy (a test checks).
export const WEBGL_MIN_POINTS = 20_000;

export function fastScatter(points: number, webgl: () => boolean = hasWebGL): 'scattergl' | 'scatter' {
  return points > WEBGL_MIN_POINTS && webgl() ? 'scattergl' : 'scatter';
}

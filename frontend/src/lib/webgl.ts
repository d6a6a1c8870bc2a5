// WebGL traces (scattergl) keep long histories fast; without WebGL (some remote
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

export function fastScatter(): 'scattergl' | 'scatter' {
  return hasWebGL() ? 'scattergl' : 'scatter';
}

// Plotly's "gl2d" bundle (scatter, scattergl, splom, parcoords; ~1.6 MB minified): only
// for figures with WebGL traces (long histories).
import Plotly from 'plotly.js-gl2d-dist-min';
import { bindPlotly } from './plot-impl';

export default bindPlotly(Plotly);

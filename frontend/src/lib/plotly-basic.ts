// Plotly's "basic" bundle (scatter, bar, pie; ~1.1 MB minified): the SVG plots. Parsing
// it costs about half the main-thread time of the gl2d bundle.
import Plotly from 'plotly.js-basic-dist-min';
import { bindPlotly } from './plot-impl';

export default bindPlotly(Plotly);

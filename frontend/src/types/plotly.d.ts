declare module 'plotly.js-gl2d-dist-min' {
  import * as Plotly from 'plotly.js';
  export default Plotly;
}

declare module 'plotly.js-gl2d-dist-min' {
  import * as Plotly from 'plotly.js';
  export default Plotly;
}

declare module 'plotly.js-basic-dist-min' {
  import * as Plotly from 'plotly.js';
  export default Plotly;
}

// The only module that imports Plotly; loaded lazily (see plot.tsx) so the
// page shell and its data requests start before Plotly's ~1 MB is parsed.
import Plotly from 'plotly.js-gl2d-dist-min';
import createPlotlyComponent from 'react-plotly.js/factory';
import type { Config, Data, Layout, PlotMouseEvent, PlotRelayoutEvent } from 'plotly.js';

const PlotlyComponent = createPlotlyComponent(Plotly);

export interface PlotImplProps {
  data: Data[];
  layout: Partial<Layout>;
  config: Partial<Config>;
  onClick?: (event: PlotMouseEvent) => void;
  onRelayout?: (event: PlotRelayoutEvent) => void;
  onRendered: (div: HTMLElement) => void;
  style?: React.CSSProperties;
}

export function downloadPng(div: HTMLElement, filename: string): Promise<string> {
  return Plotly.downloadImage(div as Plotly.PlotlyHTMLElement, {
    format: 'png',
    filename,
    width: div.clientWidth || 1000,
    height: div.clientHeight || 600,
  });
}

export default function PlotImpl({ data, layout, config, onClick, onRelayout, onRendered, style }: PlotImplProps) {
  return (
    <PlotlyComponent
      data={data}
      layout={layout}
      config={config}
      style={style ?? { width: '100%', height: '100%' }}
      useResizeHandler
      onInitialized={(_fig, div) => onRendered(div)}
      onUpdate={(_fig, div) => onRendered(div)}
      onClick={onClick}
      onRelayout={onRelayout}
    />
  );
}

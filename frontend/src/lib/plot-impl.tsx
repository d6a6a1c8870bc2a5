// The React binding of a Plotly bundle. Two bundles exist (plotly-basic.ts, plotly-gl.ts),
// each loaded lazily by plot.tsx so the page shell and its data requests never wait for
// Plotly's parse; this module is shared by both and imports no Plotly itself.
import type { ComponentType, CSSProperties } from 'react';
import createPlotlyComponent from 'react-plotly.js/factory';
import type * as PlotlyApi from 'plotly.js';
import type { Config, Data, Layout, PlotMouseEvent, PlotRelayoutEvent } from 'plotly.js';

export type PlotlyModule = typeof PlotlyApi;

export interface PlotImplProps {
  data: Data[];
  layout: Partial<Layout>;
  config: Partial<Config>;
  onClick?: (event: PlotMouseEvent) => void;
  onRelayout?: (event: PlotRelayoutEvent) => void;
  onRendered: (div: HTMLElement) => void;
  style?: CSSProperties;
}

export interface PlotlyBinding {
  Plot: ComponentType<PlotImplProps>;
  downloadPng: (div: HTMLElement, filename: string) => Promise<string>;
}

export function bindPlotly(Plotly: PlotlyModule): PlotlyBinding {
  const PlotlyComponent = createPlotlyComponent(Plotly);

  function Plot({ data, layout, config, onClick, onRelayout, onRendered, style }: PlotImplProps) {
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

  const downloadPng = (div: HTMLElement, filename: string): Promise<string> =>
    Plotly.downloadImage(div as PlotlyApi.PlotlyHTMLElement, {
      format: 'png',
      filename,
      width: div.clientWidth || 1000,
      height: div.clientHeight || 600,
    });

  return { Plot, downloadPng };
}

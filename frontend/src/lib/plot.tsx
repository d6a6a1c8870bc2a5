// Plot wrapper used by every chart: theme-aware layout, PNG export (modebar
// and button), CSV export of the plotted data, a loading fallback while
// Plotly's chunk arrives, and a performance mark when the first frame is drawn.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Config, Data, Layout, PlotMouseEvent, PlotRelayoutEvent } from 'plotly.js';
import { downloadText, toCsv, type CsvCell } from './csv';
import type { PlotlyBinding } from './plot-impl';
import { useTheme } from './theme';

/** Which Plotly bundle draws a figure: the smaller SVG-only one unless a trace needs WebGL. */
export type PlotlyFlavour = 'basic' | 'gl';

// Trace types of the gl2d bundle that the basic bundle lacks.
const GL_TRACES = new Set(['scattergl', 'splom', 'parcoords']);

export function plotlyFlavour(data: readonly Data[]): PlotlyFlavour {
  return data.some((trace) => GL_TRACES.has(trace.type ?? '')) ? 'gl' : 'basic';
}

const loaders: Record<PlotlyFlavour, () => Promise<{ default: PlotlyBinding }>> = {
  basic: () => import('./plotly-basic'),
  gl: () => import('./plotly-gl'),
};
const loading: Partial<Record<PlotlyFlavour, Promise<PlotlyBinding>>> = {};
const loaded: Partial<Record<PlotlyFlavour, PlotlyBinding>> = {};

function loadPlotly(flavour: PlotlyFlavour): Promise<PlotlyBinding> {
  loading[flavour] ??= loaders[flavour]().then(
    (module) => (loaded[flavour] = module.default),
    (error: unknown) => {
      delete loading[flavour]; // a later plot may try again
      throw error;
    },
  );
  return loading[flavour];
}

/** Start fetching and parsing a Plotly bundle while the page's API requests are in flight. */
export function preloadPlotly(flavour: PlotlyFlavour): void {
  loadPlotly(flavour).catch(() => undefined); // the plot that needs it reports the failure
}

/**
 * The Plotly binding once its chunk has run; null until then. Not React.lazy: a lazy
 * component suspends on its first render even when its chunk is already there, and React
 * then holds the revealed plot back for up to 300 ms (its fallback throttle).
 */
function usePlotly(flavour: PlotlyFlavour): { binding: PlotlyBinding | null; error: unknown } {
  const [state, setState] = useState<{ flavour: PlotlyFlavour; error: unknown } | null>(null);
  const binding = loaded[flavour] ?? null;
  useEffect(() => {
    if (binding) return;
    let live = true;
    loadPlotly(flavour).then(
      () => live && setState({ flavour, error: null }),
      (error: unknown) => live && setState({ flavour, error }),
    );
    return () => {
      live = false;
    };
  }, [flavour, binding]);
  return { binding, error: state?.flavour === flavour ? state.error : null };
}

export interface CsvTable {
  header: string[];
  rows: CsvCell[][];
}

export interface PlotProps {
  id: string;
  title?: string;
  data: Data[];
  layout: Partial<Layout>;
  /** Filename stem for PNG/CSV downloads. */
  filename: string;
  csv: () => CsvTable;
  pointCount: number;
  height?: number;
  onClick?: (event: PlotMouseEvent) => void;
  /** zoom / pan / autorange (Plotly's relayout event) */
  onRelayout?: (event: PlotRelayoutEvent) => void;
}

const PALETTE = {
  light: { fg: '#1f2328', grid: '#d8dee4', bg: '#ffffff' },
  dark: { fg: '#e6edf3', grid: '#30363d', bg: '#0d1117' },
};

export function Plot({ id, title, data, layout, filename, csv, pointCount, height = 460, onClick, onRelayout }: PlotProps) {
  const [theme] = useTheme();
  const divRef = useRef<HTMLElement | null>(null);
  const marked = useRef(false);
  const colors = PALETTE[theme];
  const flavour = plotlyFlavour(data);
  const plotly = usePlotly(flavour);

  const themed = useMemo<Partial<Layout>>(
    () => ({
      autosize: true,
      height,
      margin: { l: 64, r: 16, t: title ? 56 : 16, b: 52 },
      paper_bgcolor: colors.bg,
      plot_bgcolor: colors.bg,
      font: { color: colors.fg, size: 12 },
      // left-aligned: the mode bar (top right, on hover) never covers it
      // the title is markup (<br>, <sup>): callers pass outside text through plotText
      title: title ? { text: title, font: { size: 14 }, x: 0, xref: 'paper', xanchor: 'left' } : undefined,
      hoverlabel: { namelength: -1 },
      legend: { orientation: 'v', font: { size: 11 } },
      ...layout,
      xaxis: { gridcolor: colors.grid, zerolinecolor: colors.grid, ...layout.xaxis },
      yaxis: { gridcolor: colors.grid, zerolinecolor: colors.grid, ...layout.yaxis },
    }),
    [layout, colors, height, title],
  );

  const config = useMemo<Partial<Config>>(
    () => ({
      responsive: true,
      displaylogo: false,
      toImageButtonOptions: { format: 'png', filename, scale: 2 },
    }),
    [filename],
  );

  const onRendered = useCallback(
    (div: HTMLElement) => {
      divRef.current = div;
      if (!marked.current) {
        marked.current = true;
        performance.mark(`plot-rendered:${id}`);
      }
      div.closest('[data-plot]')?.setAttribute('data-rendered', 'true');
    },
    [id],
  );

  const exportPng = async () => {
    if (!divRef.current) return;
    const { downloadPng } = await loadPlotly(flavour);
    await downloadPng(divRef.current, filename);
  };

  const exportCsv = () => {
    const table = csv();
    downloadText(`${filename}.csv`, toCsv(table.header, table.rows));
  };

  return (
    <figure className="plot" data-plot={id} data-points={pointCount} data-testid={`plot-${id}`}>
      <div className="plot-toolbar">
        <button type="button" className="btn btn-small" onClick={exportPng} title="Download the plot as PNG">
          PNG
        </button>
        <button type="button" className="btn btn-small" onClick={exportCsv} title="Download the plotted data as CSV">
          CSV
        </button>
      </div>
      <div style={{ height }}>
        {plotly.binding ? (
          <plotly.binding.Plot
            data={data}
            layout={themed}
            config={config}
            onClick={onClick}
            onRelayout={onRelayout}
            onRendered={onRendered}
            style={{ width: '100%', height: '100%' }}
          />
        ) : plotly.error ? (
          <div className="state state-error" role="alert">
            <strong>Could not load the plotting library.</strong> {String(plotly.error)}
          </div>
        ) : (
          <div className="plot-loading">Loading plot…</div>
        )}
      </div>
    </figure>
  );
}

// Plot wrapper used by every chart: theme-aware layout, PNG export (modebar
// and button), CSV export of the plotted data, a loading fallback while
// Plotly's chunk arrives, and a performance mark when the first frame is drawn.
import { lazy, Suspense, useCallback, useMemo, useRef } from 'react';
import type { Config, Data, Layout, PlotMouseEvent, PlotRelayoutEvent } from 'plotly.js';
import { downloadText, toCsv, type CsvCell } from './csv';
import { useTheme } from './theme';

const loadPlotImpl = () => import('./plot-impl');
const PlotImpl = lazy(loadPlotImpl);

/** Start fetching and parsing Plotly while the first API requests are in flight. */
export function preloadPlotly(): void {
  void loadPlotImpl();
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
    const { downloadPng } = await import('./plot-impl');
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
        <Suspense fallback={<div className="plot-loading">Loading plot…</div>}>
          <PlotImpl
            data={data}
            layout={themed}
            config={config}
            onClick={onClick}
            onRelayout={onRelayout}
            onRendered={onRendered}
            style={{ width: '100%', height: '100%' }}
          />
        </Suspense>
      </div>
    </figure>
  );
}

import type { Data, PlotMouseEvent } from 'plotly.js';
import { fmtCodecs } from '@/lib/codecs';
import { fmtDate, METRIC_LABELS, settingLabel, shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import { fastScatter } from '@/lib/webgl';
import type { History } from '@/types/api';
import { isRegression, seriesColor, type SeriesKey } from '../utils/series';
import { xRangeOf, type XRange } from '../utils/zoom';


/** The band's fill: the series colour at 20 % opacity (browser tests look for it in the pixels). */
export function bandColor(hex: string): string {
  return `${hex}33`;
}

export interface LoadedSeries {
  key: SeriesKey;
  index: number;
  history: History;
}

function firstLine(s: string | null): string {
  return (s ?? '').split('\n')[0]?.slice(0, 80) ?? '';
}

export function HistoryPlot({
  metric,
  series,
  onPointClick,
  xRange,
  onXRange,
  context,
}: {
  metric: string;
  series: LoadedSeries[];
  onPointClick: (series: SeriesKey, sha: string) => void;
  /** shared by the plots of every metric (linked x axes) and kept in the URL */
  xRange: XRange | null;
  onXRange: (range: XRange | null) => void;
  /** datasets, machines and configuration: printed on the plot, so PNG exports carry it */
  context: string;
}) {
  const data: Data[] = [];
  const gl = fastScatter();
  let count = 0;
  for (const s of series) {
    const color = seriesColor(s.key);
    const pts = s.history.points;
    count += pts.length;
    const name = plotText(`${settingLabel(s.key.setting)} · ${s.key.dataset} · ${s.key.machine}`);
    const x = pts.map((p) => p.order);
    const hasBand = pts.some((p) => p.min !== null && p.max !== null);
    if (hasBand) {
      // Sample spread band: upper edge, then lower edge filled up to it. Always SVG
      // traces: scattergl draws no 'tonexty' fill (one path each, cheap even at 10 000
      // points); the GL canvas with the lines sits above them.
      data.push({
        type: 'scatter', mode: 'lines', x, y: pts.map((p) => p.max ?? p.value),
        line: { width: 0, color }, hoverinfo: 'skip', showlegend: false, legendgroup: name,
      });
      data.push({
        type: 'scatter', mode: 'lines', x, y: pts.map((p) => p.min ?? p.value), fill: 'tonexty',
        fillcolor: bandColor(color), line: { width: 0, color }, hoverinfo: 'skip', showlegend: false, legendgroup: name,
      });
    }
    data.push({
      type: gl,
      mode: pts.length > 400 ? 'lines' : 'lines+markers',
      name,
      legendgroup: name,
      x,
      y: pts.map((p) => p.value),
      line: { color, width: 1.5 },
      marker: { color, size: 5 },
      customdata: pts.map((p) => [shortSha(p.sha), plotText(p.author), fmtDate(p.date), plotText(firstLine(p.message)), p.sha, s.index, p.n, fmtCodecs(p.codecs)]),
      hovertemplate:
        '<b>%{customdata[0]}</b> %{customdata[2]}<br>%{customdata[1]}<br>%{customdata[3]}<br>' +
        'value %{y:.4g} (n=%{customdata[6]})<br>%{customdata[7]}<extra>%{fullData.name}</extra>',
    });
    const bySha = new Map(pts.map((p) => [p.sha, p]));
    const changes = s.history.changes.filter((c) => bySha.has(c.sha));
    if (changes.length) {
      data.push({
        type: 'scatter',
        mode: 'markers',
        name: `changes · ${name}`,
        legendgroup: name,
        x: changes.map((c) => bySha.get(c.sha)?.order ?? null),
        y: changes.map((c) => bySha.get(c.sha)?.value ?? null),
        marker: {
          size: 14,
          symbol: changes.map((c) => (c.delta_pct < 0 ? 'triangle-down' : 'triangle-up')),
          color: changes.map((c) => (isRegression(s.key.metric, c.delta_pct) ? '#d62728' : '#2ca02c')),
          line: { width: 1, color: '#000' },
        },
        customdata: changes.map((c) => [shortSha(c.sha), c.delta_pct.toFixed(2), c.p_value?.toExponential(1) ?? '—', c.sha, s.index]),
        hovertemplate: 'change at <b>%{customdata[0]}</b>: %{customdata[1]} % (p=%{customdata[2]})<extra></extra>',
      });
    }
  }

  const onClick = (event: PlotMouseEvent) => {
    const point = event.points[0];
    const cd = point?.customdata as unknown as (string | number)[] | undefined;
    if (!cd) return;
    // main traces carry [short, author, date, msg, sha, index, n]; change markers [short, delta, p, sha, index]
    const sha = String(cd.length >= 7 ? cd[4] : cd[3]);
    const index = Number(cd.length >= 7 ? cd[5] : cd[4]);
    const key = series.find((s) => s.index === index)?.key;
    if (key && sha) onPointClick(key, sha);
  };

  return (
    <Plot
      id={`history-${metric}`}
      title={`${METRIC_LABELS[metric] ?? metric}<br><sup>${plotText(context)}</sup>`}
      data={data}
      pointCount={count}
      filename={`history-${metric}-${[...new Set(series.map((s) => `${s.key.dataset}-${s.key.machine}`))].join('-')}`}
      onClick={onClick}
      onRelayout={(event) => {
        const r = xRangeOf(event as Record<string, unknown>);
        if (r !== undefined) onXRange(r);
      }}
      csv={() => ({
        header: ['setting', 'dataset', 'machine', 'metric', 'order', 'sha', 'date', 'author', 'value', 'min', 'max', 'stddev', 'n', 'change_pct'],
        rows: series.flatMap((s) => {
          const ch = new Map(s.history.changes.map((c) => [c.sha, c.delta_pct]));
          return s.history.points.map((p) => [
            s.key.setting, s.key.dataset, s.key.machine, s.key.metric, p.order, p.sha, p.date, p.author, p.value, p.min, p.max,
            p.stddev, p.n, ch.get(p.sha) ?? null,
          ]);
        }),
      })}
      layout={{
        xaxis: { title: { text: 'commit (git order)' }, ...(xRange ? { range: [...xRange], autorange: false } : { autorange: true }) },
        yaxis: { title: { text: METRIC_LABELS[metric] ?? metric } },
        hovermode: 'closest',
        showlegend: true,
        legend: { orientation: 'h', y: -0.2 },
      }}
    />
  );
}

import type { Data, PlotMouseEvent } from 'plotly.js';
import { fmtCodecs, seriesName } from '@/lib/codecs';
import { fmtDate, METRIC_LABELS, settingLabel, shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import { fastScatter } from '@/lib/webgl';
import type { History } from '@/types/api';
import { lineStyle } from '../utils/codec-lines';
import { isRegression, seriesColor, type SeriesKey } from '../utils/series';
import { axisTicks, pointLabels, type AxisLabels, type AxisPoint } from '../utils/axis';
import { xRangeOf, type XRange } from '../utils/zoom';


/** The band's fill: the series colour at 20 % opacity (browser tests look for it in the pixels). */
export function bandColor(hex: string): string {
  return `${hex}33`;
}

/** One line: a page series (setting, dataset, machine, metric) in one codec series. */
export interface LoadedSeries {
  key: SeriesKey;
  index: number;
  history: History;
  /** the codec series' key (codec-lines.ts LEGACY when none) */
  codecKey: string;
  /** position of its codec series on the page: its dash and marker (lineStyle) */
  style: number;
  /** several codec series on the page: their set names go into the legend */
  nameCodecs: boolean;
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
  axisLabels = 'date',
}: {
  /** what the x ticks read: commit dates or short shas (positions stay git orders) */
  axisLabels?: AxisLabels;
  metric: string;
  series: LoadedSeries[];
  onPointClick: (line: LoadedSeries, sha: string) => void;
  /** shared by the plots of every metric (linked x axes) and kept in the URL */
  xRange: XRange | null;
  onXRange: (range: XRange | null) => void;
  /** datasets, machines and configuration: printed on the plot, so PNG exports carry it */
  context: string;
}) {
  const data: Data[] = [];
  const gl = fastScatter(series.reduce((n, s) => n + s.history.points.length, 0));
  let count = 0;
  series.forEach((s, line) => {
    const color = seriesColor(s.key);
    const { dash, symbol } = lineStyle(s.style);
    const pts = s.history.points;
    count += pts.length;
    const codecs = s.nameCodecs ? ` · ${s.history.codecs ? seriesName(s.history.codecs) : 'codecs not recorded'}` : '';
    const name = plotText(`${settingLabel(s.key.setting)} · ${s.key.dataset} · ${s.key.machine}${codecs}`);
    const x = pts.map((p) => p.order);
    const hasBand = pts.some((p) => p.min !== null && p.max !== null);
    if (hasBand) {
      // Sample spread band: upper edge, then lower edge filled up to it. Always SVG
      // traces: scattergl draws no 'tonexty' fill (one path each, cheap even at 10 000
      // points); with WebGL lines their canvas sits above them.
      data.push({
        type: 'scatter', mode: 'lines', x, y: pts.map((p) => p.max ?? p.value),
        line: { width: 0, color }, hoverinfo: 'skip', showlegend: false, legendgroup: name,
      });
      data.push({
        type: 'scatter', mode: 'lines', x, y: pts.map((p) => p.min ?? p.value), fill: 'tonexty',
        fillcolor: bandColor(color), line: { width: 0, color }, hoverinfo: 'skip', showlegend: false, legendgroup: name,
      });
    }
    // A short line of ROOT releases names them on the plot ("ROOT 6.40.00"), not only on hover.
    const few = pts.length <= 50;
    const releases = few && pts.some((p) => p.codecs?.root_version);
    data.push({
      type: gl,
      mode: pts.length > 400 ? 'lines' : releases ? 'text+lines+markers' : 'lines+markers',
      name,
      legendgroup: name,
      x,
      y: pts.map((p) => p.value),
      ...(releases
        ? { text: pts.map((p) => (p.codecs?.root_version ? `ROOT ${plotText(p.codecs.root_version)}` : '')), textposition: 'top center' as const }
        : {}),
      line: { color, width: 1.5, dash },
      marker: { color, size: few ? 9 : 5, symbol },
      customdata: pts.map((p) => [shortSha(p.sha), plotText(p.author), fmtDate(p.date), plotText(firstLine(p.message)), p.sha, line, p.n, plotText(fmtCodecs(p.codecs))]),
      hovertemplate:
        '<b>%{customdata[0]}</b> %{customdata[2]}<br>%{customdata[1]}<br>%{customdata[3]}<br>' +
        'value %{y:.4g} (n=%{customdata[6]})<br>%{customdata[7]}<br><i>click: the commit, linked</i><extra>%{fullData.name}</extra>',
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
        customdata: changes.map((c) => [shortSha(c.sha), c.delta_pct.toFixed(2), c.p_value?.toExponential(1) ?? '—', c.sha, line]),
        hovertemplate: 'change at <b>%{customdata[0]}</b>: %{customdata[1]} % (p=%{customdata[2]})<extra></extra>',
      });
    }
  });

  // Ticks over every line's commits; labels for releases and the newest commit of the first
  // line that has them (several lines would repeat the same names).
  const allPoints: AxisPoint[] = series.flatMap((s) => s.history.points);
  const ticks = axisTicks(allPoints, axisLabels);
  const firstPoints = series[0]?.history.points ?? [];
  // a short line of releases already names them in its own text (below): label the newest only
  const textNamed = firstPoints.length <= 50 && firstPoints.some((p) => p.codecs?.root_version);
  const labels = pointLabels(firstPoints).filter((l) => !(textNamed && l.kind === 'release'));
  const annotations = labels.length <= 20 ? labels.map((l) => ({
    x: l.order, y: l.value, text: plotText(l.text), showarrow: true, arrowhead: 0, ax: 0, ay: l.kind === 'newest' ? 30 : -30,
    font: { size: 11 }, bgcolor: 'rgba(255,255,255,0.8)',
  })) : [];
  let [lo, hi] = [Infinity, -Infinity];
  for (const s of series) for (const p of s.history.points) [lo, hi] = [Math.min(lo, p.order), Math.max(hi, p.order)];
  const span = hi - lo;

  const onClick = (event: PlotMouseEvent) => {
    const point = event.points[0];
    const cd = point?.customdata as unknown as (string | number)[] | undefined;
    if (!cd) return;
    // main traces carry [short, author, date, msg, sha, line, n, codecs]; change markers [short, delta, p, sha, line]
    const sha = String(cd.length >= 7 ? cd[4] : cd[3]);
    const line = series[Number(cd.length >= 7 ? cd[5] : cd[4])];
    if (line && sha) onPointClick(line, sha);
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
        header: ['setting', 'dataset', 'machine', 'metric', 'codec_series', 'order', 'sha', 'date', 'author', 'value', 'min', 'max', 'stddev', 'n', 'change_pct', 'codecs'],
        rows: series.flatMap((s) => {
          const ch = new Map(s.history.changes.map((c) => [c.sha, c.delta_pct]));
          return s.history.points.map((p) => [
            s.key.setting, s.key.dataset, s.key.machine, s.key.metric, s.history.codecs ? seriesName(s.history.codecs) : null, p.order, p.sha, p.date, p.author, p.value,
            p.min, p.max, p.stddev, p.n, ch.get(p.sha) ?? null, fmtCodecs(p.codecs),
          ]);
        }),
      })}
      layout={{
        xaxis: {
          title: { text: axisLabels === 'sha' ? 'commit (short sha; git order)' : 'commit date (git order)' },
          // ticks at real commits, read as dates or shas; a zoom keeps plotly's own numbers
          ...(xRange ? (span <= 20 ? { tick0: 0, dtick: 1 } : {}) : { tickmode: 'array' as const, tickvals: ticks.tickvals, ticktext: ticks.ticktext }),
          ...(xRange ? { range: [...xRange], autorange: false } : { autorange: true }),
        },
        yaxis: { title: { text: METRIC_LABELS[metric] ?? metric } },
        hovermode: 'closest',
        showlegend: true,
        legend: { orientation: 'h', y: -0.25 },
        annotations,
      }}
    />
  );
}

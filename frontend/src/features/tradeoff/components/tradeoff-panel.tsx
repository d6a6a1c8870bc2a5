// One panel of the trade-off page: ratio against compression or decompression speed (or
// instructions per MB), its zoom kept in the URL.
import { settingLabel, shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import type { StateOf } from '@/lib/url-state';
import { axisRange, axisRangeOf, formatRange, parseRange } from '@/lib/zoom';
import { csvHeader, csvRows } from '../utils/csv';
import { speedAxis } from '../utils/relative';
import { shownSeries } from '../utils/series';
import { buildTraces, clickedPoint, type ClickedPoint, type MachineSeries, type SpeedKey } from '../utils/traces';
import type { tradeoffSchema } from './tradeoff-state';

type State = StateOf<typeof tradeoffSchema>;

/** The URL keys of a panel's zoom. */
const ZOOM_KEYS = { compress: ['cx', 'cy'], decompress: ['dx', 'dy'] } as const;

export function TradeoffPanel({ speed: key, state, set, machines, current, baseline, onPoint }: {
  speed: SpeedKey;
  state: State;
  set: (patch: Partial<State>, opts?: { replace?: boolean }) => void;
  machines: string[];
  current: MachineSeries[];
  baseline: MachineSeries[];
  onPoint: (hit: ClickedPoint) => void;
}) {
  const axis = speedAxis(state.axis);
  const counts = axis === 'instructions';
  const suffix = state.rel ? ` relative to ${settingLabel(state.ref)}` : '';
  const stem = `tradeoff-${state.dataset}-${shortSha(state.commit)}-${machines.join('-')}`;
  const { data, annotations, count, yTicks } = buildTraces(shownSeries(current, state.memcpy), shownSeries(baseline, state.memcpy), key, state.rel, axis);
  const op = key === 'compress' ? 'compression' : 'decompression';
  const ylabel = counts ? `${op} instructions per MB` : `${op} speed`;
  const unit = counts ? 'instructions/MB' : 'MB/s';
  const [xKey, yKey] = ZOOM_KEYS[key];
  return (
    <Plot
      id={`tradeoff-${key}`}
      title={`ratio vs ${ylabel}${suffix}<br><sup>${shortSha(state.commit)} · ${plotText(state.dataset)} · ${plotText(machines.join(', '))}</sup>`}
      data={data}
      pointCount={count}
      filename={`${stem}-${key}`}
      csv={() => ({
        header: csvHeader(counts ? 'instructions_per_mb' : 'mbps'),
        rows: [...csvRows(current, false, state.commit, state.dataset), ...csvRows(baseline, true, state.base_commit || state.commit, state.base_dataset || state.dataset)],
      })}
      onClick={(event) => {
        const hit = clickedPoint(event.points[0]?.customdata);
        if (hit) onPoint(hit);
      }}
      onRelayout={(event) => {
        // zoom and pan go to the URL (?cx=lo~hi&cy=...; y in log10), so a shared link shows the same view
        const x = axisRangeOf(event as Record<string, unknown>, 'xaxis');
        const y = axisRangeOf(event as Record<string, unknown>, 'yaxis');
        const patch: Partial<State> = {};
        if (x !== undefined) patch[xKey] = formatRange(x);
        if (y !== undefined) patch[yKey] = formatRange(y);
        if (Object.keys(patch).length) set(patch, { replace: true });
      }}
      layout={{
        xaxis: {
          title: { text: state.rel ? `compression ratio / ${settingLabel(state.ref)}` : 'compression ratio' },
          ...axisRange(parseRange(state[xKey])),
        },
        yaxis: {
          type: 'log', tickmode: 'array', tickvals: yTicks.tickvals, ticktext: yTicks.ticktext,
          title: { text: state.rel ? `${ylabel} / ${settingLabel(state.ref)}` : `${ylabel} [${unit}]` },
          ...axisRange(parseRange(state[yKey])),
        },
        annotations,
        hovermode: 'closest',
        // several machines: a legend row under the plot (wraps) instead of a scrolled column
        ...(machines.length > 1 ? { legend: { orientation: 'h' as const, y: -0.18, yanchor: 'top' as const } } : {}),
      }}
    />
  );
}

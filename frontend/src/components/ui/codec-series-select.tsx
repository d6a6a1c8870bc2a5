// Picks one codec series (ROOT's own codec copies, the host's libraries, a named set):
// numbers of different series are never mixed, so a page shows one or each on its own.
import { findSeries, seriesLabel, seriesParam } from '@/lib/codecs';
import type { CodecSeries } from '@/types/api';

export function CodecSeriesSelect({
  value,
  series,
  onChange,
  emptyLabel,
  name = 'codecs',
}: {
  /** a set name or a series key ('' = the page's default, named by emptyLabel) */
  value: string;
  series: readonly CodecSeries[];
  onChange: (v: string) => void;
  emptyLabel: string;
  name?: string;
}) {
  const found = value ? findSeries(series, value) : undefined;
  const current = found ? seriesParam(found, series) : value;
  return (
    <label className="field field-codecs" data-testid="codec-series-select">
      <span>Codec series</span>
      <select name={name} value={current} title={found ? seriesLabel(found) : emptyLabel} onChange={(e) => onChange(e.target.value)}>
        <option value="">{emptyLabel}</option>
        {series.map((s) => (
          <option key={s.series_key} value={seriesParam(s, series)}>
            {seriesLabel(s)}
          </option>
        ))}
        {current !== '' && !found && <option value={current}>{current} (not measured here)</option>}
      </select>
    </label>
  );
}

// The compare table's columns; the last links each row's series to the History page.
import { Link } from 'react-router';
import type { Column } from '@/components/ui/data-table';
import { fmtPct, METRIC_LABELS } from '@/lib/format';
import { compareRowHistoryLink } from '@/lib/history-links';
import type { CompareRow } from '@/types/api';
import { fmtDeltaBytes, fmtRatios, fmtValue } from '../utils/format';

/** `historyMachine`: the machine the history links plot (the head machine, or the one machine). */
export function compareColumns(historyMachine: string): Column<CompareRow>[] {
  return [
    { key: 'dataset', header: 'dataset', value: (r) => r.dataset },
    { key: 'configuration', header: 'configuration', value: (r) => r.configuration.label },
    { key: 'metric', header: 'metric', value: (r) => r.metric, render: (r) => METRIC_LABELS[r.metric] ?? r.metric, optional: true },
    { key: 'base', header: 'base', value: (r) => r.base, render: (r) => fmtValue(r.base, r.base_bytes), numeric: true },
    { key: 'head', header: 'head', value: (r) => r.head, render: (r) => fmtValue(r.head, r.head_bytes), numeric: true },
    { key: 'delta_pct', header: 'Δ', value: (r) => r.delta_pct, render: (r) => fmtPct(r.delta_pct), numeric: true },
    { key: 'delta_bytes', header: 'byte change', value: (r) => r.delta_bytes, render: (r) => fmtDeltaBytes(r.delta_bytes), numeric: true, optional: true },
    { key: 'ratio', header: 'ratio', value: (r) => r.head_ratio, render: (r) => fmtRatios(r.base_ratio, r.head_ratio), numeric: true, optional: true },
    { key: 'p_value', header: 'p', value: (r) => r.p_value, render: (r) => (r.p_value === null ? '—' : r.p_value.toExponential(1)), numeric: true, optional: true },
    {
      key: 'significant',
      header: 'verdict',
      value: (r) => (r.regression ? 2 : r.significant ? 1 : 0),
      render: (r) => (r.regression ? 'regression' : r.significant ? 'improvement' : 'no change'),
    },
    { key: 'history', header: 'history', value: () => null, render: (r) => <Link to={compareRowHistoryLink(r, historyMachine)}>history</Link> },
  ];
}

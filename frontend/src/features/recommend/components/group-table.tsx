// Per type class or per branch: each group's own recommendation (its exact sizes, the file's
// speeds; POST /recommend/groups, the CLI's engine) and what per-group settings would save
// against the file's single best setting (ROOT allows a setting per branch).
import { useMemo, useState } from 'react';
import { ErrorState, Spinner } from '@/components/ui/states';
import { settingLabel } from '@/lib/format';
import type { CostModel, GroupSizes, SettingSpeeds } from '@/types/api';
import { useGroupRecommendation } from '../api/post-recommend-groups';
import { GROUP_WEIGHT, MAX_GROUP_WORK, withinBudget } from '../utils/group-budget';
import { RootSnippet } from './provenance';

const PAGE = 20;

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const bytes = (n: number | null | undefined) => (n == null ? '–' : n.toLocaleString('en-US'));

function labelText(label: string | null): string {
  if (!label) return 'no data';
  const [setting, pre] = label.split('+');
  return `${settingLabel(Number(setting))}${pre ? `+${pre}` : ''} (${label})`;
}

/** What a group's own summary adds after the headline: "...; X instead if ...", one per line. */
const unlessClauses = (summary: string) => (summary.includes('; ') ? summary.slice(summary.indexOf('; ') + 2).split('; ') : []);

function Unless({ summary }: { summary: string }) {
  const clauses = unlessClauses(summary);
  if (clauses.length === 0) return null;
  // the nearest change first; the others on hover (each row would otherwise be a paragraph)
  return (
    <span title={clauses.join('\n')}>
      {clauses[0]}
      {clauses.length > 1 ? ` (+${clauses.length - 1} more)` : ''}
    </span>
  );
}

export function GroupTable(props: { kind: 'type_class' | 'branch'; groups: GroupSizes[]; speeds: SettingSpeeds[]; model: CostModel; currency: string }) {
  const { kind, groups, speeds, model, currency } = props;
  const [shown, setShown] = useState(PAGE);
  const budget = useMemo(() => withinBudget(groups), [groups]);
  const rec = useGroupRecommendation(budget.ranked, speeds, model);
  const noun = kind === 'branch' ? 'branch' : 'type class';
  const plural = kind === 'branch' ? 'branches' : 'type classes';

  if (rec.error) return <ErrorState error={rec.error} retry={() => void rec.refetch()} />;
  if (!rec.data) return <Spinner label={`Ranking per ${noun}…`} />;
  const d = rec.data;
  // the server's order: the groups preferring another setting than the file's first, largest
  // saving first, then the others largest first
  const rows = d.groups;
  const visible = kind === 'branch' ? rows.slice(0, shown) : rows;
  const rest = rows.slice(visible.length);
  const restShare = rest.reduce((s, r) => s + r.share, 0);

  return (
    <section data-testid={`groups-${kind}`} data-fetching={rec.isFetching ? 'true' : 'false'} data-file-recommended={d.file_recommended ?? ''}>
      <h3>by {noun}</h3>
      {budget.leftOut > 0 && (
        <p className="muted" data-testid={`groups-${kind}-left-out`} data-left-out={budget.leftOut}>
          Ranked the {budget.ranked.length} largest {plural}; the {budget.leftOut} smaller ones ({pct(budget.leftOutShare)} of the file&apos;s uncompressed bytes) do not fit one
          request ({MAX_GROUP_WORK} = sizes + {GROUP_WEIGHT} × {plural}) and are left out of this table and its totals.
        </p>
      )}
      <p data-testid={`saving-${kind}`} data-saving-fraction={d.saving_fraction}>
        {d.file_recommended ? (
          <>
            <span data-testid={`differing-${kind}`} data-differing={d.differing}>
              {d.differing} of {rows.length} {plural} prefer another setting than the file&apos;s {labelText(d.file_recommended)}
            </span>
            {kind === 'branch' ? ' (listed first, largest saving first)' : ''}. A setting per {noun} ({d.settings_used} different) costs {d.cost_per_group.toPrecision(4)} {currency} per file against{' '}
            {d.cost_at_file_best.toPrecision(4)} {currency} with the file&apos;s single best setting: it saves {pct(d.saving_fraction)} of the total cost ({bytes(d.compressed_bytes_per_group)} instead of{' '}
            {bytes(d.compressed_bytes_at_file_best)} compressed bytes).
          </>
        ) : (
          'No setting has sizes for every group and speeds.'
        )}
      </p>
      <table className="table">
        <thead>
          <tr>
            {[noun, ...(kind === 'branch' ? ['type class'] : []), '% of the file (uncompressed)', 'its best setting', 'margin (% of total cost)', 'compressed bytes', `bytes at ${d.file_recommended ?? 'file best'}`, `cost [${currency}]`, `cost at ${d.file_recommended ?? 'file best'} [${currency}]`, `switching saves (% of the file's cost, bytes)`, 'unless'].map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {visible.map((g) => (
            <tr key={g.key} data-testid="group-row" data-key={g.key} data-recommended={g.recommended ?? ''} data-differs={g.differs ? 'true' : 'false'}>
              <td>{g.key}</td>
              {kind === 'branch' && <td>{g.type_class ?? '–'}</td>}
              <td>{pct(g.share)}</td>
              <td>{labelText(g.recommended)}</td>
              <td>{g.margin == null ? '–' : pct(g.margin)}</td>
              <td>{bytes(g.compressed_bytes)}</td>
              <td>{bytes(g.compressed_bytes_at_file_best)}</td>
              <td>{g.cost_total == null ? '–' : g.cost_total.toPrecision(3)}</td>
              <td>{g.cost_at_file_best == null ? '–' : g.cost_at_file_best.toPrecision(3)}</td>
              <td title={g.saving != null ? `${g.saving.toPrecision(3)} ${currency} per file` : undefined}>
                {g.differs && g.saving != null && d.cost_at_file_best > 0 ? `${((100 * g.saving) / d.cost_at_file_best).toFixed(3)} %, ${bytes(g.saving_bytes)} B` : '–'}
              </td>
              <td className="muted">
                <Unless summary={g.summary} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rest.length > 0 && (
        <p className="muted" data-testid={`groups-${kind}-rest`}>
          and {rest.length} more {rest.length === 1 ? noun : plural} ({pct(restShare)} of the bytes), counted in the saving above.{' '}
          <button type="button" className="btn btn-small" onClick={() => setShown((n) => n + PAGE)}>
            show {Math.min(PAGE, rest.length)} more
          </button>
        </p>
      )}
      {kind === 'branch' && d.snippet && d.differing > 0 && <RootSnippet snippet={d.snippet} title="Apply the per-branch settings in ROOT" />}
    </section>
  );
}

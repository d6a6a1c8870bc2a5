// One commit on one machine in the inbox: its summary lines, each expandable to its rows.
import { useState } from 'react';
import { CommitLink } from '@/components/commit-link';
import { fmtDate } from '@/lib/format';
import type { ChangeSummaryLine } from '@/types/api';
import type { ChangesParams } from '../api/get-changes';
import { bisectionText, type CommitLines } from '../utils/group';
import { LineRows } from './line-rows';
import { BulkActions } from './status-actions';

function LineItem({ line, filter, token }: { line: ChangeSummaryLine; filter: ChangesParams; token: string }) {
  const [expanded, setExpanded] = useState(false);
  const statuses = Object.entries(line.statuses)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  return (
    <li className={`summary-line ${line.direction === 'regression' ? 'line-bad' : 'line-good'}`} data-testid="summary-line" data-direction={line.direction}>
      <button type="button" className="btn btn-small" aria-expanded={expanded} data-testid="line-expand" onClick={() => setExpanded(!expanded)}>
        {expanded ? '▾' : '▸'} rows
      </button>{' '}
      <span className="line-text">{line.line}</span> <span className="muted">({statuses})</span>{' '}
      <BulkActions ids={line.change_ids} token={token} what={`these ${line.changes}`} testId="line-actions" />
      {expanded && <LineRows line={line} filter={filter} token={token} />}
    </li>
  );
}

export function CommitCard({ group, filter, token }: { group: CommitLines; filter: ChangesParams; token: string }) {
  const bisection = bisectionText(group.bisection);
  return (
    <section className="card change-group" data-testid="change-group">
      <h3>
        <CommitLink sha={group.commit.sha} url={group.commit.url} /> {group.commit.message ?? ''}
      </h3>
      <p className="muted">
        {group.commit.author ?? 'unknown author'} · {fmtDate(group.commit.date)} · on <b>{group.machine.tag}</b> ({group.machine.name} v{group.machine.version})
      </p>
      {bisection && <p data-testid="bisection">{bisection}</p>}
      <p>
        <BulkActions ids={group.changeIds} token={token} what={`all ${group.changeIds.length} changes shown for this commit`} testId="commit-actions" />
      </p>
      <ul className="summary-lines">
        {group.lines.map((line) => (
          <LineItem key={`${line.codec}|${line.metric}|${line.direction}`} line={line} filter={filter} token={token} />
        ))}
      </ul>
    </section>
  );
}

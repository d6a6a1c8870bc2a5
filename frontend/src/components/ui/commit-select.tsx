// Commit picker over the whole history: the server searches by sha prefix, message and
// author (GET /commits?q=), so commits older than any one page can be chosen.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useDeferredValue, useState } from 'react';
import { useCommit } from '@/api/get-commit';
import { CommitLink } from '@/components/commit-link';
import { getCommits } from '@/api/get-commits';
import { shortSha } from '@/lib/format';
import type { Commit } from '@/types/api';

const SHOWN = 50;

export function commitLabel(c: Commit): string {
  const subject = (c.message ?? '').split('\n')[0]?.slice(0, 50) ?? '';
  return [shortSha(c.sha), subject, c.author ? `(${c.author})` : ''].filter(Boolean).join(' ');
}

export function CommitSelect({
  name,
  label,
  value,
  onChange,
  emptyLabel,
}: {
  name: string;
  label: string;
  value: string;
  onChange: (sha: string) => void;
  /** an empty choice that stays offered (e.g. "the oldest" for an open range) */
  emptyLabel?: string;
}) {
  const [search, setSearch] = useState('');
  const q = useDeferredValue(search.trim());
  const found = useQuery({
    queryKey: ['commits', { q, limit: SHOWN }],
    queryFn: () => getCommits({ q: q || undefined, limit: SHOWN }),
    placeholderData: keepPreviousData,
  });
  const current = useCommit(value);
  const items = found.data?.items ?? [];
  const options = current.data && !items.some((c) => c.sha === current.data.sha) ? [current.data, ...items] : items;
  return (
    <div className="field commit-select">
      <label>
        <span>{label}</span>
        <input
          type="search"
          name={`${name}_search`}
          value={search}
          placeholder="sha, message or author"
          aria-label={`search ${label.toLowerCase()}`}
          onChange={(e) => setSearch(e.target.value)}
        />
      </label>
      <select name={name} value={value} aria-label={label} onChange={(e) => onChange(e.target.value)}>
        {emptyLabel !== undefined ? <option value="">{emptyLabel}</option> : value === '' && <option value="">choose…</option>}
        {options.map((c) => (
          <option key={c.sha} value={c.sha}>
            {commitLabel(c)}
          </option>
        ))}
        {value !== '' && !options.some((c) => c.sha === value) && <option value={value}>{value}</option>}
      </select>
      {value !== '' && (
        <small className="muted">
          chosen: <CommitLink sha={value} repository={current.data?.repository} testId={`${name}-link`} />
        </small>
      )}
      <small className="muted" data-testid={`${name}-matches`}>
        {found.data ? `${found.data.total} match${found.data.total === 1 ? '' : 'es'}${found.data.total > SHOWN ? `, newest ${SHOWN} listed` : ''}` : ''}
      </small>
    </div>
  );
}

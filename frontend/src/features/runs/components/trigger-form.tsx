import { useState } from 'react';
import { CheckField, MultiSelectField, SelectField, TextField } from '@/components/ui/field';
import { ErrorState } from '@/components/ui/states';
import type { TriggerRequest } from '@/types/api';
import { useTriggerRun } from '../api/trigger-run';
import { loadToken, saveToken, tokenRemembered } from '@/lib/token-storage';
import { parseShas } from '../utils/shas';

export function TriggerForm({ tags, repositories }: { tags: readonly string[]; repositories: readonly string[] }) {
  const mutation = useTriggerRun();
  const [kind, setKind] = useState<'commits' | 'backfill'>('commits');
  const [repository, setRepository] = useState(repositories[0] ?? '');
  const [shas, setShas] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [chosenTags, setChosenTags] = useState<string[]>([]);
  const [suite, setSuite] = useState('');
  const [token, setToken] = useState(loadToken);
  const [remember, setRemember] = useState(tokenRemembered);
  const [problem, setProblem] = useState('');

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setProblem('');
    if (!token) return setProblem('A token is needed: create a user token with `basketbench token create --scope user`.');
    if (!repository) return setProblem('Repository is required.');
    const body: TriggerRequest = { repository, suite: suite || 'default' };
    if (kind === 'commits') {
      const list = parseShas(shas);
      if (list.length === 0) return setProblem('Give at least one commit sha.');
      body.commits = list;
    } else {
      if (!from || !to) return setProblem('A backfill needs both “from” and “to” commits.');
      body.commit_from = from;
      body.commit_to = to;
    }
    if (chosenTags.length) body.tags = chosenTags;
    saveToken(token, remember);
    mutation.mutate({ body, token });
  };

  return (
    <form className="card trigger-form" onSubmit={submit} aria-label="trigger a run">
      <h2>Trigger a run</h2>
      <div className="controls">
        <SelectField name="kind" label="What" value={kind} options={[{ value: 'commits', label: 'commits' }, { value: 'backfill', label: 'backfill (range)' }]}
          onChange={(v) => setKind(v === 'backfill' ? 'backfill' : 'commits')} />
        <TextField name="repository" label="Repository" value={repository} placeholder="root-project/root" onChange={setRepository} />
        {kind === 'commits' ? (
          <TextField name="commits" label="Commits" value={shas} placeholder="sha, sha…" onChange={setShas} />
        ) : (
          <>
            <TextField name="commit_from" label="From commit" value={from} onChange={setFrom} />
            <TextField name="commit_to" label="To commit" value={to} onChange={setTo} />
          </>
        )}
        <TextField name="suite" label="Suite" value={suite} placeholder="default" onChange={setSuite} />
        <MultiSelectField name="tags" label="Tags (none = all)" values={chosenTags} options={tags.map((t) => ({ value: t }))} onChange={setChosenTags} />
        <TextField name="token" label="Token" type="password" value={token} onChange={setToken} />
        <CheckField name="remember" label="remember token in this browser" checked={remember} onChange={(v) => { setRemember(v); if (!v) saveToken('', false); }} />
        <button type="submit" className="btn btn-primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Triggering…' : 'Trigger'}
        </button>
      </div>
      {problem && <p className="state state-error" role="alert">{problem}</p>}
      {mutation.error && <ErrorState error={mutation.error} />}
      {mutation.data && <p className="state state-ok" role="status">Queued {mutation.data.run_ids.length} run(s): {mutation.data.run_ids.join(', ')}</p>}
    </form>
  );
}

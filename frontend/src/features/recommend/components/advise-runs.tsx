// Advise on a file already on a worker's data path (no upload through the browser): queue an
// advise run (POST /advise, a token), follow its progress, load its advice like a file.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { TextField } from '@/components/ui/field';
import { ErrorState } from '@/components/ui/states';
import { loadToken, saveToken, tokenRemembered } from '@/lib/token-storage';
import { getAdviceQueryOptions, useAdviseRuns, useStartAdvise } from '../api/advise-runs';
import { parseAdvice, type AdviceFile } from '../utils/candidates';

/** `onLoad` gets the run's advice and its id (the page keeps the id in its URL). */
export function AdviseRuns({ onLoad, onError }: { onLoad: (a: AdviceFile, runId: number) => void; onError: (message: string) => void }) {
  const queryClient = useQueryClient();
  const runs = useAdviseRuns();
  const start = useStartAdvise();
  const [tag, setTag] = useState('');
  const [path, setPath] = useState('');
  const [token, setToken] = useState(loadToken);
  const [problem, setProblem] = useState('');

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setProblem('');
    if (!token) return setProblem('A token is needed: create a user token with `basketbench token create --scope user`.');
    if (!tag || !path) return setProblem('Give the worker tag and the file path (relative to its data root).');
    if (path.startsWith('/') || path.split('/').includes('..')) return setProblem(`path ${path}: give it relative to the worker's data root, without '..'`);
    saveToken(token, tokenRemembered());
    start.mutate({ body: { tag, path }, token });
  };

  const load = (runId: number, name: string) => {
    queryClient
      .fetchQuery(getAdviceQueryOptions(runId))
      .then((doc) => onLoad(parseAdvice(JSON.stringify(doc)), runId))
      .catch((e: unknown) => onError(`advise run ${runId} (${name}): ${(e as Error).message}`));
  };

  return (
    <details className="card" data-testid="advise-runs">
      <summary>Advise on a file on a worker&apos;s data path</summary>
      <form className="controls" onSubmit={submit} aria-label="advise on a worker's file">
        <TextField name="advise-tag" label="Worker tag" value={tag} onChange={setTag} />
        <TextField name="advise-path" label="Path under its data root" value={path} placeholder="skims/out.root" onChange={setPath} />
        <TextField name="advise-token" label="Token" type="password" value={token} onChange={setToken} />
        <button type="submit" className="btn btn-primary" disabled={start.isPending}>advise</button>
      </form>
      {problem && <div role="alert" className="error">{problem}</div>}
      {start.error && <ErrorState error={start.error} />}
      {runs.error ? (
        <ErrorState error={runs.error} retry={() => void runs.refetch()} />
      ) : (
        <table className="table">
          <thead>
            <tr>{['run', 'tag', 'path', 'status', 'progress', ''].map((h) => <th key={h}>{h}</th>)}</tr>
          </thead>
          <tbody>
            {(runs.data?.items ?? []).map((r) => (
              <tr key={r.run_id} data-testid="advise-run" data-run={r.run_id} data-status={r.status}>
                <td>{r.run_id}</td>
                <td>{r.tag}</td>
                <td>{r.path}</td>
                <td>
                  {r.status}
                  {r.stage && r.status === 'running' ? ` (${r.stage})` : ''}
                  {r.reason && <div className="error" data-testid="advise-reason">{r.reason}</div>}
                </td>
                <td><progress max={1} value={r.progress} aria-label={`run ${r.run_id} progress`} /> {Math.round(100 * r.progress)} %</td>
                <td>
                  {r.has_document && (
                    <button type="button" className="btn btn-small" onClick={() => load(r.run_id, r.path)}>load</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}

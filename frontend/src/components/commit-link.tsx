// Every commit sha in the UI links to the commit on its repository's web page.
import { useCommit } from '@/api/get-commit';
import { useRepositories } from '@/api/get-repositories';
import { shortSha } from '@/lib/format';

/**
 * The commit's page: the API's url when it gives one, else the repository's web page
 * (its url, or GitHub's for "owner/name"), as the API builds it (notify/summary.py).
 */
export function commitUrl(sha: string, repository?: string | null, url?: string | null, repositoryUrl?: string | null): string | null {
  if (url) return url;
  if (repositoryUrl) return `${repositoryUrl.replace(/\.git$/, '').replace(/\/+$/, '')}/commit/${sha}`;
  if (repository && /^[\w.-]+\/[\w.-]+$/.test(repository)) return `https://github.com/${repository}/commit/${sha}`;
  return null;
}

/** The link of a commit known by its sha alone (plot points, pickers): its repository is looked up. */
export function useCommitHref(sha: string, repository?: string | null, url?: string | null): string | null {
  const repos = useRepositories();
  const commit = useCommit(url || repository ? '' : sha);
  const name = repository ?? commit.data?.repository ?? null;
  const repoUrl = repos.data?.items.find((r) => r.name === name)?.url ?? null;
  return commitUrl(sha, name, url, repoUrl);
}

export function CommitLink({ sha, repository, url, testId }: { sha: string; repository?: string | null; url?: string | null; testId?: string }) {
  const href = useCommitHref(sha, repository, url);
  const code = <code>{shortSha(sha)}</code>;
  if (!href) {
    return (
      <span data-testid={testId} title={`${sha} (its repository has no web page)`}>
        {code}
      </span>
    );
  }
  return (
    <a href={href} target="_blank" rel="noreferrer" title={`${sha} on its repository`} className="commit-link" data-testid={testId}>
      {code}
    </a>
  );
}

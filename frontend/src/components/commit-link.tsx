// Every commit sha in the UI links to the commit on its repository's web page.
import { shortSha } from '@/lib/format';

/** The commit's page: the API's url when it gives one, else GitHub's for "owner/name". */
export function commitUrl(sha: string, repository?: string | null, url?: string | null): string | null {
  if (url) return url;
  if (repository && /^[\w.-]+\/[\w.-]+$/.test(repository)) return `https://github.com/${repository}/commit/${sha}`;
  return null;
}

export function CommitLink({ sha, repository, url }: { sha: string; repository?: string | null; url?: string | null }) {
  const href = commitUrl(sha, repository, url);
  const code = <code>{shortSha(sha)}</code>;
  if (!href) return code;
  return (
    <a href={href} target="_blank" rel="noreferrer" title={`${sha} on its repository`} className="commit-link">
      {code}
    </a>
  );
}

// "41–60 of 3000" with previous/next: the total and the pages come from the server.
export function Pager({
  offset,
  count,
  total,
  onPage,
  testId,
}: {
  offset: number;
  count: number;
  total: number;
  onPage: (direction: -1 | 1) => void;
  testId?: string;
}) {
  return (
    <p className="muted pager" data-testid={testId}>
      {count === 0 ? 0 : offset + 1}–{offset + count} of {total}{' '}
      <button type="button" className="btn btn-small" disabled={offset === 0} onClick={() => onPage(-1)}>
        previous
      </button>{' '}
      <button type="button" className="btn btn-small" disabled={offset + count >= total} onClick={() => onPage(1)}>
        next
      </button>
    </p>
  );
}

// The clicked point of a history line: its commit as a link to the repository's page
// (Plotly's hover cannot hold a live link) and a comparison with the line's previous point.
import { Link } from 'react-router';
import { CommitLink } from '@/components/commit-link';
import { fmtCodecs } from '@/lib/codecs';
import { fmtDate, fmtNumber, METRIC_LABELS, settingLabel } from '@/lib/format';
import type { LoadedSeries } from './history-plot';

export function PointDetails({
  line,
  sha,
  compareHref,
  onClose,
}: {
  line: LoadedSeries;
  sha: string;
  /** the compare page for this point against `base`, in this line's codec series */
  compareHref: (base: string) => string;
  onClose: () => void;
}) {
  const points = line.history.points;
  const i = points.findIndex((p) => p.sha === sha);
  const point = points[i];
  if (!point) return null;
  const previous = i > 0 ? points[i - 1] : undefined;
  const { key } = line;
  return (
    <div className="point-details" data-testid="point-details" data-sha={sha} role="status">
      <p>
        Commit <CommitLink sha={sha} testId="point-commit-link" /> {fmtDate(point.date)}
        {point.author ? ` · ${point.author}` : ''}
        {point.message ? ` · ${point.message}` : ''}
      </p>
      <p>
        {settingLabel(key.setting)} · {key.dataset} · {key.machine}: {METRIC_LABELS[key.metric] ?? key.metric} {fmtNumber(point.value)}
        {point.n !== null ? ` (n=${point.n})` : ''} · {fmtCodecs(point.codecs)}
      </p>
      <p>
        {previous ? (
          <>
            <Link to={compareHref(previous.sha)} data-testid="point-compare">
              compare with the previous point of this line
            </Link>{' '}
            (<CommitLink sha={previous.sha} />)
          </>
        ) : (
          <span className="muted">the first point of this line</span>
        )}
        <button type="button" className="btn btn-small" onClick={onClose}>
          close
        </button>
      </p>
    </div>
  );
}

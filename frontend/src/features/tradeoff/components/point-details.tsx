// The clicked trade-off point: its commit as a link to the repository's page (Plotly's
// hover cannot hold a live link), its machine, codec versions and values.
import { CommitLink } from '@/components/commit-link';
import { fmtCodecs } from '@/lib/codecs';
import { fmtNumber, settingLabel } from '@/lib/format';
import type { PlotPoint } from '../utils/relative';

function speed(median: number | null, min: number | null, max: number | null, unit: string): string {
  if (median === null) return '—';
  const spread = min !== null && max !== null ? ` (${fmtNumber(min)}..${fmtNumber(max)})` : '';
  return `${fmtNumber(median)} ${unit}${spread}`;
}

export function TradeoffPointDetails({
  point,
  machine,
  commit,
  baseline,
  codecs,
  relative,
  onClose,
}: {
  point: PlotPoint;
  machine: string;
  commit: string;
  baseline: boolean;
  codecs: Parameters<typeof fmtCodecs>[0];
  relative: boolean;
  onClose: () => void;
}) {
  const unit = relative ? '×' : 'MB/s';
  return (
    <div className="point-details" data-testid="point-details" data-setting={point.setting} role="status">
      <p>
        {baseline ? 'Baseline ' : ''}
        <b>{settingLabel(point.setting)}</b> ({point.setting}) on {machine} at commit <CommitLink sha={commit} testId="point-commit-link" /> ·{' '}
        {fmtCodecs(codecs)}
      </p>
      <p>
        ratio {fmtNumber(point.ratio)}
        {relative ? ' ×' : ''} · compression median {speed(point.compress, point.compressMin, point.compressMax, unit)} · decompression
        median {speed(point.decompress, point.decompressMin, point.decompressMax, unit)}
        <button type="button" className="btn btn-small" onClick={onClose}>
          close
        </button>
      </p>
    </div>
  );
}

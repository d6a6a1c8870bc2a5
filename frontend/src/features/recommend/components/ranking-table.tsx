// The ranking the server answered, one row per setting (its numbers in data- attributes).
import { settingLabel } from '@/lib/format';
import type { RankedSetting } from '@/types/api';

export function RankingTable({ ranking, currency }: { ranking: readonly RankedSetting[]; currency: string }) {
  const best = ranking[0]?.cost_total ?? 0;
  return (
    <table className="table" data-testid="ranking">
      <thead>
        <tr>
          {['rank', 'setting', 'compressed bytes', '% of size', 'ratio', 'comp MB/s', 'decomp MB/s', `storage [${currency}]`, `write [${currency}]`, `reads [${currency}]`, `total cost [${currency}]`, '% of the best total cost', 'Pareto'].map((h) => (
            <th key={h}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {ranking.map((r) => (
          <tr
            key={r.label}
            data-testid="rank-row"
            data-label={r.label}
            data-raw={r.raw_bytes}
            data-compressed={r.compressed_bytes}
            data-compress={r.compress_mb_s}
            data-decompress={r.decompress_mb_s}
          >
            <td>{r.rank}</td>
            <td>{settingLabel(r.setting)} ({r.label})</td>
            <td>{r.compressed_bytes.toLocaleString('en-US')}</td>
            <td>{((100 * r.compressed_bytes) / r.raw_bytes).toFixed(1)} %</td>
            <td>{r.ratio.toFixed(3)}</td>
            <td>{r.compress_mb_s.toFixed(1)}</td>
            <td>{r.decompress_mb_s.toFixed(1)}</td>
            <td>{r.cost_storage.toPrecision(3)}</td>
            <td>{r.cost_write.toPrecision(3)}</td>
            <td>{r.cost_read.toPrecision(3)}</td>
            <td>{r.cost_total.toPrecision(4)}</td>
            <td>{best > 0 ? `${((100 * r.cost_total) / best).toFixed(1)} %` : '–'}</td>
            <td>{r.pareto ? 'yes' : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

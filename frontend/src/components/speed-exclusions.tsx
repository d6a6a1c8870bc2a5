import { useHealth } from '@/api/get-health';
import { speedExclusions } from '@/lib/speed-exclusions';

/**
 * Tags whose speeds change detection left out (their runs were measured on a busy
 * machine; sizes and instruction counts are still checked), and why: shown on the
 * changes and runs pages so that detection never goes quiet without a word.
 */
export function SpeedExclusionNotes({ tag }: { tag?: string }) {
  const health = useHealth();
  const notes = speedExclusions(health.data, tag);
  if (notes.length === 0) return null;
  return (
    <section className="card" role="status" data-testid="speed-exclusions">
      <h2>Speeds left out of change detection</h2>
      <ul>
        {notes.map((e) => (
          <li key={e.tag} data-exclusion-tag={e.tag} title={e.reasons.join('\n')}>
            {e.note}
          </li>
        ))}
      </ul>
    </section>
  );
}

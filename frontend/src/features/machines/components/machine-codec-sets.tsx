import { useState } from 'react';
import { fmtCodecs } from '@/lib/codecs';
import { useMachineCodecSets } from '../api/get-machine-codec-sets';

/** The codec library sets a machine measured with; loaded when opened. */
export function MachineCodecSets({ machineId }: { machineId: number }) {
  const [open, setOpen] = useState(false);
  const sets = useMachineCodecSets(machineId, open);
  return (
    <details data-testid={`codec-sets-${machineId}`} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>codec sets</summary>
      {sets.isPending && open ? <span>loading…</span> : null}
      {sets.isError ? <span role="alert">could not load the codec sets</span> : null}
      {sets.data ? (
        sets.data.length ? (
          <ul>
            {sets.data.map((s) => (
              <li key={s.id}>
                {fmtCodecs(s)} ({s.results} results)
              </li>
            ))}
          </ul>
        ) : (
          <span>no results yet</span>
        )
      ) : null}
    </details>
  );
}

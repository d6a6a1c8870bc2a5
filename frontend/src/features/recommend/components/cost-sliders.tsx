// The cost model, one slider per parameter, and a button back to the defaults.
import { Toolbar } from '@/components/ui/field';
import type { CostModel } from '@/types/api';
import { DEFAULT_MODEL } from '../utils/candidates';

interface Slider {
  key: keyof CostModel;
  label: string;
  min: number;
  max: number;
  step: number;
}

const SLIDERS: Slider[] = [
  { key: 'storage_per_tb_month', label: 'storage per TB-month', min: 0, max: 100, step: 1 },
  { key: 'months', label: 'months kept', min: 1, max: 120, step: 1 },
  { key: 'cpu_per_core_hour', label: 'CPU per core-hour', min: 0, max: 2, step: 0.01 },
  { key: 'reads_per_file', label: 'reads per file', min: 0, max: 1000, step: 1 },
  { key: 'writes_per_file', label: 'writes per file', min: 1, max: 10, step: 1 },
  { key: 'network_mb_per_s', label: 'network MB/s', min: 10, max: 10000, step: 10 },
];

export function CostSliders({ model, onChange }: { model: CostModel; onChange: (patch: Partial<CostModel>) => void }) {
  return (
    <Toolbar>
      {SLIDERS.map((s) => (
        <label className="field" key={s.key}>
          <span>
            {s.label}: <output data-testid={`value-${s.key}`}>{model[s.key]}</output>
          </span>
          <input
            type="range"
            name={s.key}
            data-testid={`slider-${s.key}`}
            min={s.min}
            max={s.max}
            step={s.step}
            value={model[s.key]}
            onChange={(e) => onChange({ [s.key]: Number(e.target.value) })}
          />
        </label>
      ))}
      <button type="button" className="btn btn-small" onClick={() => onChange(DEFAULT_MODEL)}>defaults</button>
    </Toolbar>
  );
}

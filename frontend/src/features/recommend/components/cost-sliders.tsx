// The cost model, one slider per parameter with its unit, the currency the prices are in,
// and a button back to the defaults.
import { Toolbar } from '@/components/ui/field';
import type { CostModel } from '@/types/api';
import { DEFAULT_MODEL } from '../utils/candidates';

interface Slider {
  key: keyof CostModel;
  /** the label; {cur} is the currency */
  label: string;
  /** the value with its unit; {cur} is the currency */
  unit: string;
  min: number;
  max: number;
  step: number;
}

const SLIDERS: Slider[] = [
  { key: 'storage_per_tb_month', label: 'storage price', unit: '{cur} per TB-month', min: 0, max: 100, step: 1 },
  { key: 'months', label: 'kept for', unit: 'months', min: 1, max: 120, step: 1 },
  { key: 'cpu_per_core_hour', label: 'CPU price', unit: '{cur} per core-hour', min: 0, max: 2, step: 0.01 },
  { key: 'reads_per_file', label: 'reads', unit: 'full reads per file', min: 0, max: 1000, step: 1 },
  { key: 'writes_per_file', label: 'writes', unit: 'writes per file', min: 1, max: 10, step: 1 },
  { key: 'network_mb_per_s', label: 'network', unit: 'MB/s', min: 10, max: 10000, step: 10 },
];

export const CURRENCIES = ['USD', 'EUR', 'CHF', 'GBP', 'JPY', 'CNY'];

export function CostSliders(props: { model: CostModel; currency: string; onChange: (patch: Partial<CostModel>) => void; onCurrency: (currency: string) => void }) {
  const { model, currency, onChange, onCurrency } = props;
  return (
    <Toolbar>
      <label className="field">
        <span>currency of the prices</span>
        <select name="currency" data-testid="currency" value={currency} onChange={(e) => onCurrency(e.target.value)}>
          {(CURRENCIES.includes(currency) ? CURRENCIES : [currency, ...CURRENCIES]).map((c) => (
            <option key={c} value={c}>{c}</option>
          ))}
        </select>
      </label>
      {SLIDERS.map((s) => (
        <label className="field" key={s.key}>
          <span>
            {s.label}: <output data-testid={`value-${s.key}`}>{model[s.key]}</output>{' '}
            <span data-testid={`unit-${s.key}`}>{s.unit.replace('{cur}', currency)}</span>
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

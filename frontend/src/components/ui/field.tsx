import { type ReactNode, useState } from 'react';

export interface Option {
  value: string;
  label?: string;
}

export function SelectField({
  label,
  value,
  options,
  onChange,
  name,
  allowEmpty,
}: {
  label: string;
  value: string;
  options: readonly Option[];
  onChange: (v: string) => void;
  name: string;
  allowEmpty?: string;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <select name={name} value={value} onChange={(e) => onChange(e.target.value)}>
        {allowEmpty !== undefined && <option value="">{allowEmpty}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label ?? o.value}
          </option>
        ))}
        {value !== '' && !options.some((o) => o.value === value) && <option value={value}>{value}</option>}
      </select>
    </label>
  );
}

export function MultiSelectField({
  label,
  values,
  options,
  onChange,
  name,
}: {
  label: string;
  values: readonly string[];
  options: readonly Option[];
  onChange: (v: string[]) => void;
  name: string;
}) {
  return (
    <fieldset className="field field-multi" data-name={name}>
      <legend>{label}</legend>
      {options.map((o) => (
        <label key={o.value} className="check">
          <input
            type="checkbox"
            name={name}
            value={o.value}
            checked={values.includes(o.value)}
            onChange={(e) =>
              onChange(e.target.checked ? [...values, o.value] : values.filter((v) => v !== o.value))
            }
          />
          {o.label ?? o.value}
        </label>
      ))}
    </fieldset>
  );
}

export function TextField({
  label,
  value,
  onChange,
  name,
  placeholder,
  type = 'text',
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  name: string;
  placeholder?: string;
  type?: string;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <input name={name} type={type} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

export function CheckField({ label, checked, onChange, name }: { label: string; checked: boolean; onChange: (v: boolean) => void; name: string }) {
  return (
    <label className="field check">
      <input type="checkbox" name={name} checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <span>{label}</span>
    </label>
  );
}

export function Toolbar({ children }: { children: ReactNode }) {
  return <div className="toolbar">{children}</div>;
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children && <p className="muted">{children}</p>}
    </header>
  );
}

export function ProgressBar({ value, label }: { value: number; label?: string }) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div className="progress" role="progressbar" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100} aria-label={label}>
      <div className="progress-fill" style={{ width: `${pct}%` }} />
      <span className="progress-text">{pct} %</span>
    </div>
  );
}

/**
 * Text input applied on Enter or blur, not on every keystroke: for shas and
 * other values where a half-typed one would be a bad API request.
 */
export function DeferredTextField({
  label,
  value,
  onCommit,
  name,
  placeholder,
}: {
  label: string;
  value: string;
  onCommit: (v: string) => void;
  name: string;
  placeholder?: string;
}) {
  const [draft, setDraft] = useState(value);
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    // the URL changed under us (back button, another control): show the new value
    setShown(value);
    setDraft(value);
  }
  const commit = () => {
    const v = draft.trim();
    if (v !== value) onCommit(v);
  };
  return (
    <label className="field">
      <span>{label}</span>
      <input
        name={name}
        type="text"
        value={draft}
        placeholder={placeholder}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit();
          }
        }}
      />
    </label>
  );
}

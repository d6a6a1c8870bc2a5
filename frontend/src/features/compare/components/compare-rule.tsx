import type { CompareRule } from '@/types/api';

/** The rule that decided the verdicts, as the server applied it. */
export function CompareRuleText({ rule }: { rule: CompareRule }) {
  return (
    <div className="muted compare-rule" data-testid="compare-rule">
      <p>
        Sizes: {rule.sizes}. Speeds: {rule.speed_test}; A/B effects below {rule.min_effect_pct} %
        {Object.keys(rule.min_effect_patterns ?? {}).length > 0 && ' (or their series’ own minimum)'} are not changes; {rule.multiple_testing}.
      </p>
      <p data-testid="compare-rule-none">Rows without evidence: {rule.speed_without_evidence}.</p>
      {rule.note && (
        <p className="state state-warning" role="status" data-testid="compare-rule-note">
          {rule.note}
        </p>
      )}
    </div>
  );
}

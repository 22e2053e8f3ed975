import type { ReactNode } from "react";

// What the hashmap rules mean, told where operators choose them (from CloudKitty's rating code).

export function HelpBox({ summary, children }: { summary: string; children: ReactNode }) {
  return (
    <details className="help">
      <summary>{summary}</summary>
      <div className="help-body">{children}</div>
    </details>
  );
}

export function FlatRateHelp() {
  return (
    <HelpBox summary="Flat or rate?">
      <p>
        <strong>Flat</strong> is a price per unit: it is multiplied by the quantity (for example
        0.01 per GiB).
      </p>
      <p>
        <strong>Rate</strong> multiplies the flat price of its group (0.9 gives a 10% discount, 1.2
        a 20% surcharge). A rate rule alone in its group prices 0, because there is no flat price to
        multiply.
      </p>
      <p>
        Within one group, several matching flat mappings do not add up: the most expensive one wins.
        Rate mappings in one group multiply together. Rules in different groups add up.
      </p>
    </HelpBox>
  );
}

export function GroupHelp() {
  return (
    <HelpBox summary="What is a group?">
      <p>
        A group is a set of rules that are calculated together, and groups add up: the price of a
        usage is the sum of the prices of every group. Use several groups to charge the same usage
        twice, for example a base price and a licence fee.
      </p>
      <p>Rules without a group are calculated together in the default group.</p>
    </HelpBox>
  );
}

export function TenantHelp() {
  return (
    <HelpBox summary="When to set a tenant?">
      <p>
        Leave the tenant empty for a rule that applies to every project. A rule with a tenant
        (project) id applies only to that project and <strong>replaces</strong> the global rule with
        the same value in the same group: it is an override, not an extra charge.
      </p>
    </HelpBox>
  );
}

export function ThresholdHelp() {
  return (
    <HelpBox summary="How do thresholds work?">
      <p>
        A threshold applies from its level upwards, and in each group only the highest level reached
        applies. A service threshold compares the quantity (for example GiB); a field threshold
        compares the numeric metadata value.
      </p>
      <p>
        A rate threshold multiplies its group's price (0.95 is a 5% volume discount). A flat service
        threshold adds its cost once, not per unit; a flat field threshold adds to the price per
        unit.
      </p>
      <p>
        Example: volume at a flat 0.001 per GiB with rate thresholds 50 → 0.98 and 200 → 0.95 prices
        20 GiB at 0.02, 50 GiB at 0.049, 80 GiB at 0.0784 and 250 GiB at 0.2375.
      </p>
    </HelpBox>
  );
}

export function MappingHelp() {
  return (
    <HelpBox summary="What is a mapping?">
      <p>
        A mapping sets a price. A <strong>service mapping</strong> applies to every usage of the
        service. A <strong>field mapping</strong> applies when the usage's metadata field has
        exactly the given value (compared as text: “1” and “1.0” differ).
      </p>
    </HelpBox>
  );
}

/** One figure of a period's totals, in their `<dl>`: its label and its value as shown. */
export function Total({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

import type { ReactNode, Ref } from 'react';

/**
 * A table wider than a narrow phone: it scrolls sideways on its own, in a region named by its
 * caption that the keyboard can reach (and so scroll), while the page keeps its width.
 */
export function ScrollingTable({
  caption,
  id,
  children,
  ref,
}: {
  caption: string;
  id: string;
  children: ReactNode;
  ref?: Ref<HTMLDivElement>;
}) {
  return (
    <div className="table-scroll" role="region" aria-labelledby={id} tabIndex={0} ref={ref}>
      <table className="stats-table">
        <caption id={id}>{caption}</caption>
        {children}
      </table>
    </div>
  );
}

import { useLayoutEffect, useRef, useState, type ReactNode, type Ref } from 'react';
import { arStats } from '../domain/catalogue/marketer-stats';

/**
 * A table wider than a narrow phone: it scrolls sideways on its own, in a region named by its
 * caption that the keyboard can reach (and so scroll), while the page keeps its width. While it
 * is wider than its region, a shadow at each edge that hides columns (styles.css) and a line
 * above it say so at a glance; the line is the region's description too.
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
  const table = useRef<HTMLTableElement>(null);
  const scrolls = useScrolls(table);
  const hint = `${id}-scrolls`;
  return (
    <>
      {scrolls && (
        <p className="scroll-hint" id={hint}>
          {arStats.tableScrolls}
        </p>
      )}
      <div
        className="table-scroll"
        role="region"
        aria-labelledby={id}
        aria-describedby={scrolls ? hint : undefined}
        tabIndex={0}
        ref={ref}
      >
        <table className="stats-table" ref={table}>
          <caption id={id}>{caption}</caption>
          {children}
        </table>
      </div>
    </>
  );
}

/**
 * Whether the table is wider than its region: measured before the first paint (the line comes
 * with the table, moving nothing after it), then again whenever either changes width (a
 * phone turned, the rows of «عرض الكل», another order).
 */
function useScrolls(table: { current: HTMLTableElement | null }): boolean {
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const element = table.current;
    const region = element?.parentElement;
    if (!element || !region) return;
    const measure = () => setScrolls(region.scrollWidth > region.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(region);
    observer.observe(element);
    return () => observer.disconnect();
  }, [table]);
  return scrolls;
}

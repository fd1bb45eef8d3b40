// A table that scrolls sideways inside its own box on a narrow screen, so the page itself is
// never wider than the window. While the table overflows, the box is a named region that takes
// focus, so it can be scrolled from the keyboard too.
import { type ReactNode, useEffect, useRef, useState } from 'react';

export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const check = () => setOverflowing(element.scrollWidth > element.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(element);
    for (const child of element.children) observer.observe(child);
    return () => observer.disconnect();
  }, []);
  return (
    <div
      ref={box}
      className="table-scroll"
      {...(overflowing ? { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` } : {})}
    >
      {children}
    </div>
  );
}

import type { CSSProperties } from 'react';

// The e-mails' look, inline (most mail clients drop a <style>'s rules on some element, none
// drops an inline style), in the pages' colours (src/web/styles.css). Dark mode is the one
// <style> block: a client that honours prefers-color-scheme repaints by these classes; one
// that does not shows the light colours, whose contrast stands on its own.
const colours = {
  page: '#f3f6f4',
  card: '#ffffff',
  text: '#1c2a23',
  muted: '#4b5a53',
  brand: '#0b5d3b',
  border: '#c9d3cd',
};

export const darkCss = `
:root { color-scheme: light dark; supported-color-schemes: light dark; }
body { margin: 0; padding: 0; background-color: ${colours.page}; }
@media (prefers-color-scheme: dark) {
  body, .mail-page { background-color: #0e1712 !important; }
  .mail-card { background-color: #16231c !important; border-color: #3d4f45 !important; }
  .mail-card, .mail-card h1, .mail-card h2, .mail-card p, .mail-card th, .mail-card td,
  .mail-card caption { color: #e6efe9 !important; }
  .mail-card th, .mail-card td, .mail-footer { border-color: #3d4f45 !important; }
  .mail-muted, .mail-card .mail-muted { color: #b8c7be !important; }
  .mail-link { color: #8fd9b3 !important; }
  .mail-button { background-color: #8fd9b3 !important; color: #06301d !important; }
}
`;

const font = "system-ui, 'Segoe UI', Tahoma, 'Noto Sans Arabic', Arial, sans-serif";

export const styles = {
  page: {
    backgroundColor: colours.page,
    direction: 'rtl',
    padding: '12px 4px',
    fontFamily: font,
  },
  card: {
    backgroundColor: colours.card,
    border: `1px solid ${colours.border}`,
    borderRadius: '8px',
    padding: '16px',
    maxWidth: '600px',
    width: '100%',
    color: colours.text,
    direction: 'rtl',
    textAlign: 'right',
    fontFamily: font,
  },
  brand: { margin: '0 0 16px', fontSize: '18px', lineHeight: '28px', fontWeight: 700 },
  logo: { height: '32px', width: 'auto', maxWidth: '128px', marginBottom: '8px' },
  h1: { margin: '0 0 8px', fontSize: '22px', lineHeight: '32px', color: colours.text },
  h2: { margin: '24px 0 8px', fontSize: '18px', lineHeight: '28px', color: colours.text },
  text: { margin: '0 0 16px', fontSize: '16px', lineHeight: '26px', color: colours.text },
  muted: { margin: '0 0 12px', fontSize: '14px', lineHeight: '22px', color: colours.muted },
  link: { color: colours.brand, textDecoration: 'underline', fontSize: '16px' },
  button: {
    backgroundColor: colours.brand,
    color: '#ffffff',
    borderRadius: '6px',
    padding: '12px 20px',
    fontSize: '16px',
    fontWeight: 700,
  },
  table: {
    width: '100%',
    borderCollapse: 'collapse',
    margin: '0 0 16px',
    fontSize: '14px',
    lineHeight: '20px',
  },
  caption: {
    textAlign: 'right',
    fontSize: '16px',
    fontWeight: 700,
    padding: '0 0 8px',
    color: colours.text,
  },
  th: {
    textAlign: 'right',
    padding: '6px 4px',
    borderBottom: `1px solid ${colours.border}`,
    fontWeight: 700,
    color: colours.text,
    verticalAlign: 'top',
  },
  td: {
    textAlign: 'right',
    padding: '6px 4px',
    borderBottom: `1px solid ${colours.border}`,
    color: colours.text,
    verticalAlign: 'top',
  },
  footer: { borderTop: `1px solid ${colours.border}`, marginTop: '24px', paddingTop: '12px' },
} satisfies Record<string, CSSProperties>;

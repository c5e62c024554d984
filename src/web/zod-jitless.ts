import { config } from 'zod/mini';

// zod probes for `new Function` when it builds an object schema, to compile a faster parser.
// The page's CSP forbids eval, and Chrome reports even the caught probe as a violation (a
// DevTools issue: Lighthouse best practices 96, not 100). entry-client imports this first, so
// it runs before any schema is built; the server, with no CSP on itself, keeps the fast path.
config({ jitless: true });

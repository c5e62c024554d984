import * as z from 'zod/mini';
import { registrationPath } from '../domain/links';
import type { PackageKey } from '../domain/packages';

// docs/product.md §6: the only roles that may see their registration link.
const storedUserSchema = z.object({
  role: z.enum(['marketing', 'team_leader_marketing']),
  id: z.pipe(
    z.union([z.string().check(z.trim(), z.minLength(1)), z.int().check(z.nonnegative())]),
    z.transform(String),
  ),
});

/**
 * The one place that decides who may see the link page: the raw localStorage 'user' value
 * gives the marketer's id, or null for no user, malformed JSON, another role or no id.
 */
export function linkMarketingId(storedUser: string | null): string | null {
  if (storedUser === null) return null;
  try {
    const user = storedUserSchema.safeParse(JSON.parse(storedUser));
    return user.success ? user.data.id : null;
  } catch {
    return null;
  }
}

/**
 * A marketer's link: {origin}/register/marketer/{marketingId} for the free trial (no package),
 * {origin}/register/register-client/{package}/{marketingId} for a package (docs/product.md §2).
 * The path comes from the route table (../domain/links.ts), so the link opens the right form.
 */
export function marketerLink(origin: string, marketingId: string, packageKey?: PackageKey): string {
  return `${origin}${registrationPath({ packageName: packageKey, marketingId })}`;
}

// The campaign parameters each channel of the link page adds, so that the report tells which
// channel brings sign-ups (docs/marketer-kit.md). The link the marketer sees and copies has none.
const channelParameters = {
  whatsapp: 'utm_source=whatsapp&utm_medium=referral',
  share: 'utm_source=share',
  qr: 'utm_source=qr',
} as const;

/** A channel the link page hands the link out by, itself: WhatsApp, the share sheet, the QR code. */
export type ShareChannel = keyof typeof channelParameters;

/** The marketer's link as a channel hands it out: tagged with the channel's campaign parameters. */
export function channelLink(link: string, channel: ShareChannel): string {
  return `${link}?${channelParameters[channel]}`;
}

/** WhatsApp's click-to-chat link: the app opens with the text ready and lets the user pick a chat. */
export function whatsAppShareUrl(text: string): string {
  return `https://wa.me/?text=${encodeURIComponent(text)}`;
}

/**
 * The downloaded QR code's name, tasjeel-{id}-{package or free-trial}.png; characters that a
 * file name cannot hold (or that would read as a folder) become '_'.
 */
export function qrFileName(marketingId: string, packageKey?: PackageKey): string {
  const id = marketingId.replace(/[^\p{L}\p{N}_-]/gu, '_');
  return `tasjeel-${id}-${packageKey ?? 'free-trial'}.png`;
}

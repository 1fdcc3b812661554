/** What the rooms' free reads share: the token id field and parameter, an id of a kind. */
import { z } from 'zod';
import { tokenIdSchema } from '../schemas.js';

export const tokenField = { tokenId: tokenIdSchema };
export const id = (prefix: string, what: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be a ${what} id (${prefix}_ + 26-character ULID)`);
export const token = { id: 'tokenId' };

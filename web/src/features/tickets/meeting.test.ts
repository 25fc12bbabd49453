import { describe, expect, it } from 'vitest';
import { MEETING_BASE_URL, meetingLink } from './meeting';

describe('meetingLink', () => {
  it('is one room per ticket: company id and the first 8 characters of the uuid', () => {
    expect(MEETING_BASE_URL).toBe('https://meet.jit.si');
    expect(meetingLink(3, '9F1C2B7A-55d4-4c1e-9a0b-0123456789ab')).toBe('https://meet.jit.si/chatflow-3-9f1c2b7a');
    expect(meetingLink(3, '9f1c2b7a-0000-0000-0000-000000000000')).toBe(meetingLink(3, '9f1c2b7a-ffff-ffff-ffff-ffffffffffff'));
    expect(meetingLink(4, '9f1c2b7a-55d4')).not.toBe(meetingLink(3, '9f1c2b7a-55d4'));
  });
});

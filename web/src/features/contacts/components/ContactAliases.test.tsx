import { beforeEach, describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import { setLanguage } from '../../../lib/i18n';
import { ContactAliases } from './ContactAliases';
import { formatPhoneNumber, identityOf } from '../utils/identities';

beforeEach(async () => {
  await setLanguage('pt');
});

describe('identities', () => {
  it('tells a LID from a phone number and formats each for reading', () => {
    expect(identityOf('201234567890123@lid')).toEqual({ kind: 'lid', id: '201234567890123' });
    expect(identityOf('5511977776666')).toEqual({ kind: 'phone', number: '+55 11 97777-6666' });
    expect(identityOf('551133334444')).toEqual({ kind: 'phone', number: '+55 11 3333-4444' });
    expect(identityOf('14155550123')).toEqual({ kind: 'phone', number: '+14155550123' });
  });

  it('keeps masked digits in place and shows what is not a number as it is', () => {
    expect(formatPhoneNumber('5511*******66')).toBe('+55 11 *****-**66');
    expect(formatPhoneNumber('abc@g.us')).toBe('abc@g.us');
  });
});

describe('ContactAliases', () => {
  it('shows nothing for a contact known by one identity', () => {
    const { container } = render(<ContactAliases aliases={[]} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('lists each other identity read-only and formatted', async () => {
    render(<ContactAliases aliases={['201234567890123@lid', '5511977776666']} />);
    const box = screen.getByTestId('contact-aliases');
    expect(within(box).getByText('Também conhecido como')).toBeInTheDocument();
    expect(screen.getByTestId('contact-alias-0')).toHaveTextContent('ID do WhatsApp 201234567890123');
    expect(screen.getByTestId('contact-alias-0')).toHaveAttribute('title', '201234567890123@lid');
    expect(screen.getByTestId('contact-alias-1')).toHaveTextContent('Telefone +55 11 97777-6666');
    // Read-only: nothing to type in, nothing to delete.
    expect(within(box).queryByRole('textbox')).not.toBeInTheDocument();
    expect(within(box).queryByRole('button')).not.toBeInTheDocument();

  });

  it('speaks the reader’s language', async () => {
    await setLanguage('en');
    render(<ContactAliases aliases={['201234567890123@lid', '5511977776666']} />);
    expect(screen.getByTestId('contact-aliases')).toHaveTextContent('Also known as');
    expect(screen.getByTestId('contact-alias-0')).toHaveTextContent('WhatsApp ID 201234567890123');
    expect(screen.getByTestId('contact-alias-1')).toHaveTextContent('Phone +55 11 97777-6666');
  });
});

import { TableCell, TableRow } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { translateError } from '../../lib/i18n/errors';

interface TableStatusRowsProps {
  /** The list's query: its error, or success with no rows, gets a row. */
  query: { isError: boolean; isSuccess: boolean; error: unknown };
  rowCount: number;
  /** What an empty list says. */
  empty: string;
  colSpan: number;
  /** Prefix of the test ids: `<prefix>-error`, `<prefix>-empty`. */
  testId: string;
}

/** The rows a list table shows instead of data: the translated error, or that it is empty. */
export function TableStatusRows({ query, rowCount, empty, colSpan, testId }: TableStatusRowsProps) {
  const { t } = useTranslation();
  if (query.isError) {
    return (
      <TableRow>
        <TableCell colSpan={colSpan} align="center" data-testid={`${testId}-error`}>
          {translateError(query.error, t)}
        </TableCell>
      </TableRow>
    );
  }
  if (query.isSuccess && rowCount === 0) {
    return (
      <TableRow>
        <TableCell colSpan={colSpan} align="center" data-testid={`${testId}-empty`}>
          {empty}
        </TableCell>
      </TableRow>
    );
  }
  return null;
}

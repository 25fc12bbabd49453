import { Navigate, Route, Routes } from 'react-router';
import { ContactImportPage } from './ContactImportPage';
import { ContactsPage } from './ContactsPage';

/** /contacts and /contacts/import. */
export default function ContactsRoutes() {
  return (
    <Routes>
      <Route index element={<ContactsPage />} />
      <Route path="import" element={<ContactImportPage />} />
      <Route path="*" element={<Navigate to="/contacts" replace />} />
    </Routes>
  );
}

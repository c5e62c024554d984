import { useEffect } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { ar } from '../domain/catalogue';
import { MyLinkPage } from './my-link-page';
import { RegistrationPage } from './registration-page';
import { formPaths, matchScreen, myLinkPath } from './routes';

export function App() {
  const { pathname } = useLocation();
  const { title } = matchScreen(pathname);

  // The server writes the first <title> into the head; this keeps it right on client navigation.
  useEffect(() => {
    document.title = title;
  }, [title]);

  return (
    <Routes>
      {formPaths.map((path) => (
        <Route key={path} path={path} element={<RegistrationPage />} />
      ))}
      <Route path={myLinkPath} element={<MyLinkPage />} />
      <Route path="*" element={ar.notFound} />
    </Routes>
  );
}

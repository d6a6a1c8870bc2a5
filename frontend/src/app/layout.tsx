import { NavLink, Outlet } from 'react-router';
import { paths } from '@/config/paths';
import { useTheme } from '@/lib/theme';

export function Layout() {
  const [theme, toggle] = useTheme();
  return (
    <div className="app">
      <nav className="nav" aria-label="main">
        <span className="brand">basketbench</span>
        {Object.values(paths).map((p) => (
          <NavLink key={p.path} to={p.path} className={({ isActive }) => (isActive ? 'active' : undefined)}>
            {p.label}
          </NavLink>
        ))}
        <span className="spacer" />
        <a href="/docs" className="muted">API</a>
        <button type="button" className="btn btn-small" onClick={toggle} aria-label="toggle dark mode" data-testid="theme-toggle">
          {theme === 'dark' ? '☀ light' : '☾ dark'}
        </button>
      </nav>
      <main className="main">
        <Outlet />
      </main>
    </div>
  );
}

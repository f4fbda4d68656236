/// The one stylesheet: system fonts, a reading column of ~70 characters, light and dark by the
/// system's choice, one column on a phone and a sidebar from 60em up.
enum WebStylesheet {
    static let text = """
        :root{--bg:#fdfcfa;--fg:#1f2328;--muted:#5d6570;--line:#e3e0da;--accent:#b3400b;--mark:#fde68a;\
        --unread:#1f2328;--read:#6b7280;--panel:#f4f2ee;color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e6e6e6;--muted:#a0a7b1;--line:#2e3238;\
        --accent:#f59e66;--mark:#6b5512;--unread:#f2f2f2;--read:#8d949e;--panel:#1e2126}}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        a{color:var(--accent)}
        :focus-visible{outline:3px solid var(--accent);outline-offset:2px}
        .skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:var(--bg);padding:.5rem}
        .hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
        .top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.6rem 1rem;border-bottom:1px solid var(--line);\
        background:var(--panel)}
        .brand{font-weight:700;text-decoration:none;color:var(--fg)}
        .top nav{display:flex;flex-wrap:wrap;gap:.2rem .9rem}
        .top nav a{text-decoration:none;color:var(--muted)}.top nav a[aria-current]{color:var(--fg);font-weight:600}
        .search{flex:1 1 12rem}.search input{width:100%}
        .count{display:inline-block;min-width:1.6em;padding:0 .35em;border-radius:1em;background:var(--line);\
        color:var(--fg);font-size:.8em;text-align:center}
        .layout{display:grid;grid-template-columns:minmax(0,1fr);gap:1rem;max-width:72rem;margin:0 auto;padding:1rem}
        @media (min-width:60em){.layout{grid-template-columns:minmax(0,1fr) 15rem}}
        aside h2{font-size:1rem;margin:.2rem 0}aside ul{list-style:none;padding:0;margin:0}
        aside li a{display:flex;justify-content:space-between;padding:.25rem 0;text-decoration:none;color:var(--fg)}
        h1{font-size:1.5rem;line-height:1.25;margin:.2rem 0 .8rem}
        .toolbar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0 1rem}
        .entry{padding:.7rem .6rem;border-bottom:1px solid var(--line);border-left:3px solid transparent}
        .entry.current{border-left-color:var(--accent);background:var(--panel)}
        .entry h2{font-size:1.08rem;margin:0 0 .2rem;line-height:1.35}
        .entry h2 a{color:var(--unread);text-decoration:none}.entry.read h2 a{color:var(--read);font-weight:400}
        .meta{color:var(--muted);font-size:.88rem;margin:0}.meta a{color:var(--muted)}
        .feed-icon{width:16px;height:16px;vertical-align:-3px;border-radius:2px}
        .snippet{margin:.3rem 0 0;color:var(--fg);font-size:.95rem}
        mark{background:var(--mark);color:inherit;padding:0 .1em}
        .actions{display:flex;flex-wrap:wrap;gap:.4rem;margin-top:.4rem}
        .entry .actions button{font-size:.8rem;padding:.05rem .55rem}
        form{margin:0}
        button,input,select,textarea{font:inherit;color:inherit}
        button{background:var(--panel);border:1px solid var(--line);border-radius:.3rem;padding:.2rem .65rem;cursor:pointer;\
        white-space:nowrap}
        button[aria-pressed=true]{background:var(--mark)}
        button.link{border:0;background:none;color:var(--accent);text-decoration:underline;padding:0}
        button.danger{color:#b42318}
        input,select,textarea{background:var(--bg);border:1px solid var(--line);border-radius:.3rem;padding:.3rem .5rem;max-width:100%}
        label{display:block;margin:.5rem 0 .15rem;font-weight:600}
        .pager{display:flex;justify-content:space-between;margin:1rem 0}
        .article{max-width:70ch}
        .article .content{font:1.1rem/1.65 Georgia,"Iowan Old Style","Noto Serif",serif;overflow-wrap:anywhere}
        .content img,.content video,.content iframe,.enclosures video{max-width:100%;height:auto}
        .content pre{overflow-x:auto;background:var(--panel);padding:.6rem}
        .content blockquote{margin-left:0;padding-left:1rem;border-left:3px solid var(--line);color:var(--muted)}
        .content table{display:block;overflow-x:auto}
        .enclosures audio{width:100%}
        table.feeds{width:100%;border-collapse:collapse;font-size:.93rem}
        .feeds th,.feeds td{text-align:left;padding:.45rem .3rem;border-bottom:1px solid var(--line);vertical-align:top}
        .feeds td form{display:inline-block;margin:0 .2rem .2rem 0}
        .feeds .state{min-width:14rem}.feeds .address{overflow-wrap:anywhere}
        .failing{color:#b42318}.muted{color:var(--muted)}
        .notice{padding:.6rem .8rem;border-radius:.3rem;background:var(--panel);border-left:4px solid var(--accent)}
        .error{border-left-color:#b42318}
        .secret{font-family:ui-monospace,monospace;overflow-wrap:anywhere;user-select:all}
        .login{max-width:22rem;margin:10vh auto;padding:1rem}
        section{margin:1.5rem 0}section h2{font-size:1.15rem}
        dialog{max-width:26rem;border:1px solid var(--line);background:var(--bg);color:var(--fg)}
        dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem 1rem}dt{font-family:ui-monospace,monospace}dd{margin:0}
        @media (max-width:40em){.feeds thead{display:none}.feeds td{display:block;border:0;padding:.1rem 0}\
        .feeds tr{display:block;border-bottom:1px solid var(--line);padding:.5rem 0}}
        """
}

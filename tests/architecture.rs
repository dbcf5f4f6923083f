//! The layer order of `docs/architecture.md`, held: every `crate::` path in
//! the library's code (unit tests aside) may point only to a module of a lower
//! layer, every module of `src/lib.rs` has a layer, and the submodules of one
//! module do not import each other in a cycle. A failure names file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, top first, as the ```` ```layers ```` block of the document writes them.
fn read_layers(doc: &str) -> Result<Vec<Vec<String>>, String> {
    let block = doc.split("```layers").nth(1).ok_or("docs/architecture.md has no ```layers block")?;
    let block = block.split("```").next().unwrap_or("");
    let layers: Vec<Vec<String>> = block
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect();
    if layers.is_empty() {
        return Err("the ```layers block is empty".to_string());
    }
    Ok(layers)
}

/// Each module's height: 0 for the bottom layer.
fn heights(layers: &[Vec<String>]) -> Result<BTreeMap<String, usize>, String> {
    let mut height = BTreeMap::new();
    for (i, layer) in layers.iter().rev().enumerate() {
        for module in layer {
            if height.insert(module.clone(), i).is_some() {
                return Err(format!("module `{module}` is in two layers"));
            }
        }
    }
    Ok(height)
}

/// Source text with comments, string and character literals blanked out
/// (newlines kept, so line numbers hold).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !is_ident(chars.get(i.wrapping_sub(1))) {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            let closing: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let rest: String = chars[j + 1..].iter().collect();
            let len = rest.find(&closing).map_or(rest.chars().count(), |k| rest[..k].chars().count());
            let end = (j + 1 + len + closing.chars().count()).min(chars.len());
            for &ch in &chars[i..end] {
                out.push(blank(ch));
            }
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for _ in 0..step {
                    if let Some(&ch) = chars.get(i) {
                        out.push(blank(ch));
                    }
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal.
            let end = chars[i + 2..].iter().position(|&ch| ch == '\'').map_or(chars.len(), |k| i + 3 + k);
            for &ch in &chars[i..end.min(chars.len())] {
                out.push(blank(ch));
            }
            i = end;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// The code of a file without its `#[cfg(test)]` items, and the names of
/// test-only child modules it declares (`#[cfg(test)] mod tests;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = Vec::new();
    let mut test_children = Vec::new();
    let lines: Vec<&str> = code.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            out.push(lines[i].to_string());
            i += 1;
            continue;
        }
        out.push(String::new());
        i += 1;
        // Skip the item the attribute applies to: one line ending in `;`, or a braced block.
        let mut depth = 0i32;
        let mut opened = false;
        while i < lines.len() {
            let line = lines[i];
            if let Some(name) = line.trim().strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                test_children.push(name.trim().to_string());
            }
            depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
            opened |= line.contains('{');
            out.push(String::new());
            i += 1;
            if (opened && depth <= 0) || (!opened && line.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    (out.join("\n"), test_children)
}

/// A library file: its module path (`["search", "history"]`) and whether it
/// is a directory module's `mod.rs`.
#[derive(Clone, Debug)]
struct SourceFile {
    path: PathBuf,
    module: Vec<String>,
    is_mod_rs: bool,
}

/// The library's files under `root/src`, with paths relative to `root`.
fn library_files(root: &Path) -> Vec<SourceFile> {
    let src = root.join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap_or(&path);
            let mut module: Vec<String> = rel.iter().map(|p| p.to_string_lossy().to_string()).collect();
            let last = module.pop().unwrap_or_default();
            let is_mod_rs = last == "mod.rs";
            if !is_mod_rs {
                module.push(last.trim_end_matches(".rs").to_string());
            }
            if module == ["lib"] || module == ["main"] || module.is_empty() {
                continue;
            }
            let path = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            files.push(SourceFile { path, module, is_mod_rs });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// A path the code names: the module path it resolves to (as far as the
/// words go) and the 1-based line.
#[derive(Debug)]
struct Reference {
    target: Vec<String>,
    line: usize,
}

/// The words of `crate::a::b` and `super::a` paths, resolved against the
/// file's own module; `crate::{a, b::c}` groups give one reference each.
fn references(code: &str, file: &SourceFile) -> Vec<Reference> {
    let mut refs = Vec::new();
    // The module `super` names: the parent of the file's module.
    let parent: Vec<String> = file.module[..file.module.len().saturating_sub(1)].to_vec();
    for (n, line) in code.lines().enumerate() {
        for (start, _) in line.match_indices("crate::").chain(line.match_indices("super::")) {
            if is_ident(line[..start].chars().last().as_ref()) {
                continue;
            }
            let is_super = line[start..].starts_with("super::");
            let base: Vec<String> = if is_super { parent.clone() } else { Vec::new() };
            // Both prefixes are seven characters long.
            let rest = &line[start + 7..];
            for words in path_words(rest) {
                let mut target = base.clone();
                target.extend(words);
                refs.push(Reference { target, line: n + 1 });
            }
        }
    }
    refs
}

/// The leading identifiers of a path after `crate::` (`eval::Evaluator` →
/// `[eval, Evaluator]`); a `{...}` group gives one word list per entry.
fn path_words(rest: &str) -> Vec<Vec<String>> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let inner = group.split('}').next().unwrap_or("");
        return inner.split(',').map(|entry| words(entry.trim())).filter(|w| !w.is_empty()).collect();
    }
    vec![words(rest)]
}

fn words(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in path.split("::") {
        let part = part.trim();
        let ident: String = part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if ident.is_empty() {
            break;
        }
        let whole = ident.len() == part.len();
        out.push(ident);
        if !whole {
            break;
        }
    }
    out
}

/// Every violation of the layer rule in `files`, as `file:line: message`.
fn layer_violations(files: &[(SourceFile, String)], height: &BTreeMap<String, usize>) -> Vec<String> {
    let mut errors = Vec::new();
    for (file, code) in files {
        let own = &file.module[0];
        let Some(&own_height) = height.get(own) else {
            errors.push(format!("{}: module `{own}` has no layer in docs/architecture.md", file.path.display()));
            continue;
        };
        for r in references(code, file) {
            let Some(target) = r.target.first() else { continue };
            if target == own {
                continue;
            }
            match height.get(target) {
                None => {}
                Some(&h) if h < own_height => {}
                Some(&h) => errors.push(format!(
                    "{}:{}: `{own}` (layer {own_height}) uses `{target}` (layer {h}): {}",
                    file.path.display(),
                    r.line,
                    if h == own_height { "a peer" } else { "a higher layer" }
                )),
            }
        }
    }
    errors
}

/// Cycles among the submodules of one module (`tournament::player` and
/// `tournament::referee` using each other), as one message per cycle.
fn submodule_cycles(files: &[(SourceFile, String)]) -> Vec<String> {
    // Edges between sibling submodules: (parent, from child) -> to children.
    let mut edges: BTreeMap<(Vec<String>, String), BTreeSet<String>> = BTreeMap::new();
    let mut seen_at: BTreeMap<(Vec<String>, String, String), String> = BTreeMap::new();
    for (file, code) in files {
        for depth in 1..file.module.len() {
            let parent = file.module[..depth].to_vec();
            let child = file.module[depth].clone();
            for r in references(code, file) {
                if r.target.len() > depth && r.target[..depth] == parent[..] && r.target[depth] != child {
                    let to = r.target[depth].clone();
                    edges.entry((parent.clone(), child.clone())).or_default().insert(to.clone());
                    seen_at
                        .entry((parent.clone(), child.clone(), to))
                        .or_insert_with(|| format!("{}:{}", file.path.display(), r.line));
                }
            }
        }
    }
    // One message per cycle, whichever member it was found from.
    let mut cycles: BTreeMap<(Vec<String>, Vec<String>), String> = BTreeMap::new();
    let parents: BTreeSet<Vec<String>> = edges.keys().map(|(p, _)| p.clone()).collect();
    for parent in parents {
        let children: Vec<String> = edges.keys().filter(|(p, _)| *p == parent).map(|(_, c)| c.clone()).collect();
        for start in &children {
            // A path from `start` back to itself.
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut visited = BTreeSet::new();
            while let Some((node, path)) = stack.pop() {
                for next in edges.get(&(parent.clone(), node.clone())).into_iter().flatten() {
                    if next == start {
                        let mut names = path.clone();
                        names.push(next.clone());
                        let at =
                            seen_at.get(&(parent.clone(), node.clone(), next.clone())).cloned().unwrap_or_default();
                        let mut members = path.clone();
                        members.sort();
                        cycles.entry((parent.clone(), members)).or_insert_with(|| {
                            format!("{at}: import cycle in `{}`: {}", parent.join("::"), names.join(" -> "))
                        });
                    } else if visited.insert(next.clone()) {
                        let mut longer = path.clone();
                        longer.push(next.clone());
                        stack.push((next.clone(), longer));
                    }
                }
            }
        }
    }
    cycles.into_values().collect()
}

/// Library files with their code (comments, literals and unit tests removed).
fn load(root: &Path) -> Vec<(SourceFile, String)> {
    let files = library_files(root);
    let mut test_only: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut loaded = Vec::new();
    for file in files {
        let text = fs::read_to_string(root.join(&file.path)).unwrap_or_default();
        let (code, children) = without_tests(&code_only(&text));
        for child in children {
            let mut module =
                if file.is_mod_rs { file.module.clone() } else { file.module[..file.module.len() - 1].to_vec() };
            if !file.is_mod_rs {
                module.push(file.module[file.module.len() - 1].clone());
            }
            module.push(child);
            test_only.insert(module);
        }
        loaded.push((file, code));
    }
    loaded.retain(|(f, _)| !test_only.contains(&f.module));
    loaded
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_import_points_down_the_layers() {
    let doc = fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md exists");
    let layers = read_layers(&doc).expect("the layer block reads");
    let height = heights(&layers).expect("each module has one layer");
    let files = load(&root());
    let mut errors = layer_violations(&files, &height);
    // Every module the crate declares has a layer, and every layer names a module.
    let lib = code_only(&fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs exists"));
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod ")))
        .map(|m| m.trim_end_matches(';').trim().to_string())
        .collect();
    for m in &declared {
        if !height.contains_key(m) {
            errors.push(format!("src/lib.rs: module `{m}` has no layer in docs/architecture.md"));
        }
    }
    for m in height.keys() {
        if !declared.contains(m) {
            errors.push(format!("docs/architecture.md: layer module `{m}` is not declared in src/lib.rs"));
        }
    }
    assert!(errors.is_empty(), "imports against the layers of docs/architecture.md:\n{}", errors.join("\n"));
}

#[test]
fn no_import_cycle_between_submodules() {
    let cycles = submodule_cycles(&load(&root()));
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The checker itself: planted imports against the order are reported with
/// their line, comments and strings are ignored, unit tests are exempt.
#[test]
fn the_checker_reports_planted_violations() {
    let layers = read_layers("```layers\ntop\nmiddle peer\nbottom\n```").expect("reads");
    let height = heights(&layers).expect("one layer each");
    let file = |module: &[&str], text: &str| {
        let source = SourceFile {
            path: PathBuf::from(format!("src/{}.rs", module.join("/"))),
            module: module.iter().map(|m| m.to_string()).collect(),
            is_mod_rs: false,
        };
        (source, without_tests(&code_only(text)).0)
    };
    let files = vec![
        file(&["bottom"], "use crate::top::Thing;\n// use crate::top::InAComment;\nconst S: &str = \"crate::top\";\n"),
        file(&["middle"], "use crate::{bottom::B, peer::P};\n#[cfg(test)]\nmod tests {\n    use crate::top::T;\n}\n"),
        file(&["top"], "fn f() { crate::middle::g(); super::bottom::h(); }\n"),
    ];
    let errors = layer_violations(&files, &height);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[0].starts_with("src/bottom.rs:1: `bottom` (layer 0) uses `top` (layer 2)"), "{}", errors[0]);
    assert!(
        errors[1].starts_with("src/middle.rs:1: `middle` (layer 1) uses `peer` (layer 1): a peer"),
        "{}",
        errors[1]
    );

    let cycle = vec![
        file(&["front", "a"], "use super::b::X;\n"),
        file(&["front", "b"], "use crate::front::a::Y;\n"),
        file(&["front", "c"], "use super::a::Z;\n"),
    ];
    let cycles = submodule_cycles(&cycle);
    assert_eq!(cycles.len(), 1, "{cycles:#?}");
    assert!(cycles[0].contains("import cycle in `front`"), "{}", cycles[0]);
}

/// The checker on the real tree: one upward import planted in memory into
/// `board/position.rs` (the engine from the board) is the one error reported,
/// named with its file, line and both layers.
#[test]
fn a_planted_upward_import_in_the_real_tree_fails() {
    let doc = fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md exists");
    let height = heights(&read_layers(&doc).expect("the layer block reads")).expect("each module has one layer");
    let mut files = load(&root());
    assert!(layer_violations(&files, &height).is_empty(), "the tree itself must be clean for this test");
    let (file, code) = files
        .iter_mut()
        .find(|(f, _)| f.module == ["board", "position"])
        .expect("src/board/position.rs is a library file");
    let planted_line = code.lines().count() + 1;
    code.push_str("\nuse crate::engine::Engine;\n");
    let path = file.path.display().to_string();
    let errors = layer_violations(&files, &height);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let expected = format!("{path}:{planted_line}: `board` (layer");
    assert!(errors[0].starts_with(&expected), "{} (expected to start with {expected})", errors[0]);
    assert!(errors[0].contains("uses `engine`") && errors[0].ends_with("a higher layer"), "{}", errors[0]);
}

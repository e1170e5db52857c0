//! Runs the build scripts' generators on a crate's source, as the driver's build.rs does:
//! `generate <github-copilot-sdk dir> <out dir> [driver src dir]` writes `rpc_dispatch.rs`,
//! `byname.rs`, `surface_gen.rs`, `request_gen.rs` and `cfgs.txt` (the cfgs build.rs would set,
//! one a line) into the out dir (to diff the generated code of two versions of the scripts).

use std::path::{Path, PathBuf};

use copilot_conformance_driver_rust_buildtests::{build_api, build_byname, build_rpc, build_surface, build_syntax};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, sdk, out, ..] = args.as_slice() else {
        eprintln!("usage: generate <sdk crate dir> <out dir> [driver src dir]");
        std::process::exit(2);
    };
    let driver = args.get(3).map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../src"));
    let out = Path::new(out);
    std::fs::create_dir_all(out).expect("create the out dir");
    let crate_src = Path::new(sdk).join("src");
    let sdk = build_syntax::Sdk::read(Some(&crate_src));
    let requests = build_rpc::generate(sdk.rpc.as_ref(), &build_byname::deserializable(&sdk), &out.join("rpc_dispatch.rs"));
    let mut src = String::new();
    for e in std::fs::read_dir(&driver).expect("the driver's src dir") {
        let p = e.expect("a dir entry").path();
        if p.extension().is_some_and(|x| x == "rs") {
            src.push_str(&std::fs::read_to_string(&p).expect("a driver source"));
        }
    }
    let owners: Vec<&str> = build_byname::REQUEST_OWNERS.iter().map(|r| r.1).collect();
    build_byname::generate(&sdk, &requests, &src, &owners, &out.join("byname.rs"));
    let api = build_api::Api::read(Some(&crate_src));
    let write = |f: &str, text: String| std::fs::write(out.join(f), text).expect("write an output");
    write("surface_gen.rs", build_surface::surface_gen(&api));
    write("request_gen.rs", build_surface::request_gen(&api));
    write("cfgs.txt", build_api::cfgs(&api).into_iter().map(|c| c + "\n").collect());
}

//! rust-analyzer takes no type for a closure's parameter from an `Fn` bound whose array length
//! is a const expression; rustc compiles this (the shape of binder's `read_from`).

pub struct Reader;

impl Reader {
    pub fn read_slice(&mut self, out: &mut [u8]) -> Result<(), ()> {
        out.fill(0);
        Ok(())
    }
}

#[repr(C)]
pub struct Object {
    kind: u32,
    handle: u64,
}

fn read_with<R>(read: R) -> Result<(), ()>
where
    R: FnOnce(&mut [u8; size_of::<Object>()]) -> Result<(), ()>,
{
    let mut bytes = [0u8; size_of::<Object>()];
    read(&mut bytes)
}

pub fn read(reader: &mut Reader, available: usize) -> Result<(), ()> {
    read_with(|slice| {
        let len = usize::min(slice.len(), available);
        reader.read_slice(&mut slice[..len])?;
        Ok(())
    })
}
